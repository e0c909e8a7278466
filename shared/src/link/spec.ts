/**
 * Link specs as people type them: a preset (`lte`), a custom link
 * (`bw=2mbit/10mbit,delay=40ms,jitter=5ms,loss=1%,queue=100ms`), or a preset with overrides
 * (`lte,loss=1%`). A value with a slash is `up/down`; without, both directions. Bad input is one line that
 * says what was wrong and what is accepted ({@link LinkSpecError}).
 */
import { findPreset, LINK_PRESET_NAMES, LINK_PRESETS } from './presets.ts';
import {
  linkProfileSchema,
  lossRateOf,
  MAX_DELAY_MS,
  MAX_QUEUE_BYTES,
  MAX_RATE_BPS,
  MIN_RATE_BPS,
  type LinkDirection,
  type LinkProfile,
  type LossModel,
  type QueueLimit,
} from './profile.ts';
import {
  formatDuration,
  formatPercent,
  formatRate,
  formatSize,
  humanRate,
  parseDuration,
  parsePercent,
  parseRate,
  parseSize,
} from './units.ts';

export class LinkSpecError extends Error {
  override readonly name = 'LinkSpecError';
}

type Side = 'up' | 'down';
type DirectionPatch = Partial<Record<keyof LinkDirection, unknown>>;

interface KeyRule {
  /** What a good value looks like, for the error message. */
  expected: string;
  /** The value for one direction, or a reason it is wrong (string) / undefined for unreadable. */
  parse(text: string): { value: unknown } | string | undefined;
  field: keyof LinkDirection;
  /** One file per key: no up/down slash (paths have slashes). */
  single?: Side;
}

const NONE = 'none';

const RULES: Record<string, KeyRule> = {
  bw: {
    field: 'rateBps',
    expected: `a rate such as 2mbit, 500kbit or 2mbit/10mbit (up/down), or none; ${formatRate(MIN_RATE_BPS)} to ${formatRate(MAX_RATE_BPS)}`,
    parse(text) {
      if (text === NONE) return { value: undefined };
      const bps = parseRate(text);
      if (bps === undefined) return undefined;
      if (bps < MIN_RATE_BPS || bps > MAX_RATE_BPS) return `${formatRate(MIN_RATE_BPS)} to ${formatRate(MAX_RATE_BPS)}`;
      return { value: bps };
    },
  },
  delay: {
    field: 'delayMs',
    expected: `a one-way delay such as 40ms or 0.5s, or 20ms/60ms (up/down); at most ${formatDuration(MAX_DELAY_MS)}`,
    parse: (text) => duration(text),
  },
  jitter: {
    field: 'jitterMs',
    expected: 'a jitter such as 5ms (each packet is delayed by delay +- jitter), or 5ms/10ms (up/down)',
    parse: (text) => duration(text),
  },
  loss: {
    field: 'loss',
    expected:
      'a random loss such as 1%, or Gilbert-Elliott bursts ge:P%:R%[:BAD%[:GOOD%]] (P: good->bad, R: bad->good per packet, ' +
      'loss in the bad / good state, default 100% / 0%), or none; up/down with a slash',
    parse: parseLoss,
  },
  queue: {
    field: 'queue',
    expected: `a bottleneck queue in time (100ms, at the link's rate) or size (64kb, 1500b; kb = 1024 bytes), or none for the default; at most ${formatSize(MAX_QUEUE_BYTES)}`,
    parse(text): { value: QueueLimit | undefined } | string | undefined {
      if (text === NONE) return { value: undefined };
      const ms = parseDuration(text);
      if (ms !== undefined)
        return ms > 0 && ms <= MAX_DELAY_MS ? { value: { ms } } : `more than 0 and at most ${formatDuration(MAX_DELAY_MS)}`;
      const bytes = parseSize(text);
      if (bytes === undefined) return undefined;
      return bytes >= 1500 && bytes <= MAX_QUEUE_BYTES ? { value: { bytes } } : `1500b to ${formatSize(MAX_QUEUE_BYTES)}`;
    },
  },
  'trace-up': { field: 'traceFile', single: 'up', expected: 'a Mahimahi trace file for the uplink', parse: traceFile },
  'trace-down': { field: 'traceFile', single: 'down', expected: 'a Mahimahi trace file for the downlink', parse: traceFile },
};
const ALIASES: Record<string, string> = { rate: 'bw', bandwidth: 'bw' };
const KEYS = Object.keys(RULES);

function duration(text: string): { value: number } | string | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) return undefined;
  return ms <= MAX_DELAY_MS ? { value: ms } : `at most ${formatDuration(MAX_DELAY_MS)}`;
}

function traceFile(text: string): { value: string } | undefined {
  return text.length > 0 ? { value: text } : undefined;
}

function parseLoss(text: string): { value: LossModel | undefined } | string | undefined {
  if (text === NONE) return { value: undefined };
  if (text.toLowerCase().startsWith('ge:')) {
    const parts = text.slice(3).split(':').map(parsePercent);
    if (parts.length < 2 || parts.length > 4 || parts.some((p) => p === undefined)) return undefined;
    const [p, r, lossBad = 1, lossGood = 0] = parts as number[];
    if ([p, r, lossBad, lossGood].some((x) => x! > 1)) return 'percentages up to 100%';
    if (r === 0) return 'R (bad -> good) must be above 0%, or the link never leaves the bad state';
    return { value: { kind: 'gilbert-elliott', p: p!, r: r!, lossBad, lossGood } };
  }
  const rate = parsePercent(text);
  if (rate === undefined) return undefined;
  return rate <= 1 ? { value: { kind: 'random', rate } } : 'at most 100%';
}

function fail(message: string): never {
  throw new LinkSpecError(message);
}

const presetList = (): string => LINK_PRESET_NAMES.join(', ');

/**
 * Parses a link spec into a validated profile. Throws {@link LinkSpecError} with a one-line message.
 * `none` (or an empty spec when `allowEmpty`) is the no-op link.
 */
export function parseLinkSpec(spec: string): LinkProfile {
  const text = spec.trim();
  if (text === '') fail(`empty link spec; give a preset (${presetList()}) or key=value pairs such as bw=2mbit,delay=40ms`);
  const items = text.split(',').map((s) => s.trim());
  let base: LinkProfile | undefined;
  const patches: Record<Side, DirectionPatch> = { up: {}, down: {} };
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (item === '') fail(`empty item in link spec '${text}' (two commas in a row?)`);
    const eq = item.indexOf('=');
    if (eq < 0) {
      const preset = findPreset(item);
      if (index > 0) {
        fail(preset ? `preset '${item}' must come first (e.g. ${item},loss=1%)` : `'${item}' is not key=value; keys: ${KEYS.join(', ')}`);
      }
      if (!preset) fail(`unknown preset '${item}'; presets: ${presetList()}; or key=value pairs such as bw=2mbit,delay=40ms`);
      base = preset.profile;
      return;
    }
    const rawKey = item.slice(0, eq).trim().toLowerCase();
    const key = ALIASES[rawKey] ?? rawKey;
    const value = item.slice(eq + 1).trim();
    const rule = RULES[key];
    if (!rule) fail(`unknown key '${rawKey}' in link spec; keys: ${KEYS.join(', ')}`);
    if (seen.has(key)) fail(`'${key}' given twice in link spec`);
    seen.add(key);
    const sides: string[] = rule.single ? [value] : value.split('/');
    if (sides.length > 2 || sides.some((s) => s.trim() === '')) fail(`bad value '${value}' for ${key}: expected ${rule.expected}`);
    const parsed = sides.map((s) => {
      const result = rule.parse(s.trim());
      if (result === undefined) fail(`bad value '${s.trim()}' for ${key}: expected ${rule.expected}`);
      if (typeof result === 'string') fail(`bad value '${s.trim()}' for ${key}: ${result}`);
      return result.value;
    });
    if (rule.single) patches[rule.single][rule.field] = parsed[0];
    else {
      patches.up[rule.field] = parsed[0];
      patches.down[rule.field] = parsed[parsed.length - 1];
    }
  });
  const start: LinkProfile = base ?? { name: 'custom', up: { delayMs: 0, jitterMs: 0 }, down: { delayMs: 0, jitterMs: 0 } };
  const overridden = seen.size > 0;
  const profile = {
    name: overridden ? 'custom' : start.name,
    up: applyPatch(start.up, patches.up),
    down: applyPatch(start.down, patches.down),
  };
  for (const side of ['up', 'down'] as const) {
    const d = profile[side];
    if (d.jitterMs > d.delayMs) {
      fail(
        `jitter ${formatDuration(d.jitterMs)} exceeds delay ${formatDuration(d.delayMs)} (${side}): each packet takes delay +- jitter, ` +
          'and a packet cannot arrive before it left',
      );
    }
  }
  const checked = linkProfileSchema.safeParse(profile);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    fail(`link spec '${text}': ${issue.path.join('.')} ${issue.message}`);
  }
  return checked.data;
}

function applyPatch(direction: LinkDirection, patch: DirectionPatch): LinkDirection {
  const merged: Record<string, unknown> = { ...direction };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) delete merged[field];
    else merged[field] = value;
  }
  return merged as LinkDirection;
}

/** Same link, whatever the names say. */
export function sameLink(a: LinkProfile, b: LinkProfile): boolean {
  return sameDirection(a.up, b.up) && sameDirection(a.down, b.down);
}

function sameDirection(a: LinkDirection, b: LinkDirection): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(d: LinkDirection): unknown[] {
  return [d.delayMs, d.jitterMs, d.rateBps, d.queue && JSON.stringify(d.queue), d.loss && JSON.stringify(d.loss), d.traceFile];
}

function formatLoss(loss: LossModel | undefined): string {
  if (!loss) return NONE;
  if (loss.kind === 'random') return formatPercent(loss.rate);
  const parts = [loss.p, loss.r];
  if (loss.lossBad !== 1 || loss.lossGood !== 0) parts.push(loss.lossBad);
  if (loss.lossGood !== 0) parts.push(loss.lossGood);
  return `ge:${parts.map(formatPercent).join(':')}`;
}

function formatQueue(queue: QueueLimit | undefined): string {
  if (!queue) return NONE;
  return 'ms' in queue ? formatDuration(queue.ms) : formatSize(queue.bytes);
}

/**
 * The spec of a profile: a preset's name when it is one unchanged, otherwise the custom form, which
 * {@link parseLinkSpec} reads back to the same link.
 */
export function formatLinkSpec(profile: LinkProfile): string {
  const preset = LINK_PRESETS.find((p) => sameLink(p.profile, profile));
  if (preset) return preset.name;
  const parts: string[] = [];
  const pair = (key: string, up: string, down: string, skip: string): void => {
    if (up === skip && down === skip) return;
    parts.push(`${key}=${up === down ? up : `${up}/${down}`}`);
  };
  const { up, down } = profile;
  const rate = (d: LinkDirection) => (d.rateBps === undefined ? NONE : formatRate(d.rateBps));
  pair('bw', rate(up), rate(down), NONE);
  pair('delay', formatDuration(up.delayMs), formatDuration(down.delayMs), formatDuration(0));
  pair('jitter', formatDuration(up.jitterMs), formatDuration(down.jitterMs), formatDuration(0));
  pair('loss', formatLoss(up.loss), formatLoss(down.loss), NONE);
  pair('queue', formatQueue(up.queue), formatQueue(down.queue), NONE);
  if (up.traceFile) parts.push(`trace-up=${up.traceFile}`);
  if (down.traceFile) parts.push(`trace-down=${down.traceFile}`);
  return parts.length ? parts.join(',') : 'none';
}

function ms(value: number): string {
  return String(Number(value.toFixed(1)));
}

function rates(up: number | undefined, down: number | undefined): string | undefined {
  if (up === undefined && down === undefined) return undefined;
  if (up === down) return humanRate(up!);
  const d = down === undefined ? '∞' : humanRate(down);
  const u = up === undefined ? '∞' : humanRate(up);
  // "↓29.5 ↑7.6 Mbit/s" when both share a unit.
  const unit = /\s(\S+)$/.exec(d)?.[1];
  if (unit && u.endsWith(` ${unit}`)) return `↓${d.slice(0, -unit.length - 1)} ↑${u}`;
  return `↓${d} ↑${u}`;
}

/**
 * A short label for the dashboard and reports: "LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated". The round
 * trip is the sum of both one-way delays; ± is the largest one-way jitter.
 */
export function linkLabel(profile: LinkProfile): string {
  const preset = LINK_PRESETS.find((p) => sameLink(p.profile, profile));
  if (preset && !preset.emulated) return 'No link emulation';
  const title = preset?.title ?? 'Custom';
  const { up, down } = profile;
  const parts: string[] = [];
  const rtt = up.delayMs + down.delayMs;
  const jitter = Math.max(up.jitterMs, down.jitterMs);
  if (rtt > 0) parts.push(`${ms(rtt)} ms RTT${jitter > 0 ? ` ±${ms(jitter)}` : ''}`);
  if (up.traceFile || down.traceFile) parts.push('trace-driven');
  const r = rates(up.traceFile ? undefined : up.rateBps, down.traceFile ? undefined : down.rateBps);
  if (r) parts.push(r);
  const loss = Math.max(up.loss ? lossRateOf(up.loss) : 0, down.loss ? lossRateOf(down.loss) : 0);
  if (loss > 0) {
    const bursty = up.loss?.kind === 'gilbert-elliott' || down.loss?.kind === 'gilbert-elliott';
    parts.push(`${formatPercent(loss)} ${bursty ? 'bursty ' : ''}loss`);
  }
  parts.push('emulated');
  return `${title} · ${parts.join(', ')}`;
}
