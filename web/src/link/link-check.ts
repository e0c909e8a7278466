/**
 * Which links the dashboard's stream can run behind, checked as the gateway checks `?link=` (with the link
 * lab's own parser, `@sightline/shared/link`), so a spec the gateway would refuse is said on the page as it is
 * typed and never reaches the gateway. What a connection can emulate depends on what it carries: the
 * WebSocket is a byte stream (rate, queue, delay and jitter, never loss: TCP resends a lost segment); a WebRTC
 * peer is datagrams behind the gateway's UDP relay, which may lose them too. Neither reads a file a client
 * names (traces). Pure, so every message is unit-tested.
 */
import {
  formatLinkSpec,
  isTransparent,
  LINK_PRESETS,
  linkLabel,
  LinkSpecError,
  parseLinkSpec,
  streamLimitations,
  type LinkPreset,
  type LinkProfile,
} from '@sightline/shared/link';
import type { Transport } from '../transport/transports.ts';

/** The spec of no emulated link: the path as it is. */
export const NO_LINK_SPEC = 'none';

export type LinkCheck =
  | {
      ok: true;
      /** The canonical spec (a preset's name when it is one unchanged, `none` for no emulation): what `?link=` carries. */
      spec: string;
      /** "LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated", or "No link emulation". */
      label: string;
      emulated: boolean;
    }
  | { ok: false; message: string };

type Parsed = { ok: true; profile: LinkProfile } | { ok: false; message: string };

/** The link lab's profile of `text` as the gateway would take it from any client, or a one-line reason. */
function parse(text: string): Parsed {
  let profile;
  try {
    profile = parseLinkSpec(text);
  } catch (error) {
    return { ok: false, message: error instanceof LinkSpecError ? error.message : `bad link spec: ${String(error)}` };
  }
  if (profile.up.traceFile || profile.down.traceFile) {
    return { ok: false, message: 'a trace-driven link reads a file: it is for the benchmark (pnpm bench --link), not for the dashboard' };
  }
  return { ok: true, profile };
}

function named(profile: LinkProfile): Extract<LinkCheck, { ok: true }> {
  if (isTransparent(profile.up) && isTransparent(profile.down))
    return { ok: true, spec: NO_LINK_SPEC, label: 'No link emulation', emulated: false };
  return { ok: true, spec: formatLinkSpec(profile), label: linkLabel(profile), emulated: true };
}

/** Whether the dashboard's connection over `transport` can run behind `text`: the link's canonical spec and label, or a one-line reason. */
export function checkLink(text: string, transport: Transport): LinkCheck {
  const parsed = parse(text);
  if (!parsed.ok) return parsed;
  const limits = transport === 'websocket' ? bothWays(streamLimitations(parsed.profile)) : [];
  if (limits.length > 0) {
    return {
      ok: false,
      message: `not on the dashboard's WebSocket: ${limits.join('; ')} (Transport WebRTC here, or the benchmark's as root)`,
    };
  }
  return named(parsed.profile);
}

/** "loss (up): why" and "loss (down): why" said once, as "loss (up and down): why". */
function bothWays(limits: readonly string[]): string[] {
  const [up, down, ...rest] = limits;
  if (up === undefined || down === undefined || rest.length > 0) return [...limits];
  const general = up.replace(' (up)', ' (up and down)');
  return general !== up && down.replace(' (down)', ' (up and down)') === general ? [general] : [up, down];
}

/** A link some connection of the dashboard can run (what a setting, the address or the store may hold): its canonical spec. */
export function runnableLink(text: string): string | undefined {
  const check = checkLink(text, 'webrtc');
  return check.ok ? check.spec : undefined;
}

/**
 * The link the WebSocket runs when `spec` (canonical) is chosen: `spec` itself when a byte stream can emulate it,
 * else the same link without its loss (the nearest one it can), `none` for a spec that does not parse.
 */
export function websocketLinkOf(spec: string): string {
  if (checkLink(spec, 'websocket').ok) return spec;
  const parsed = parse(spec);
  if (!parsed.ok) return NO_LINK_SPEC;
  const { up, down } = parsed.profile;
  return named({ ...parsed.profile, up: { ...up, loss: undefined }, down: { ...down, loss: undefined } }).spec;
}

/** The presets a WebSocket can run (every one today: none has loss), `none` first. */
export const LINK_CHOICES: readonly LinkPreset[] = LINK_PRESETS.filter((preset) => checkLink(preset.name, 'websocket').ok);

/** The preset a canonical spec names, if it is one. */
export function presetOf(spec: string): LinkPreset | undefined {
  return LINK_CHOICES.find((preset) => preset.name === spec);
}
