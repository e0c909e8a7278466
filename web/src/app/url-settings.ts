/**
 * The dashboard's choices in its address, so a run can be shared and scripted:
 * `/?codec=json&run=gateway&model=blazeface-back-256`. One table, `URL_PARAMS`: a setting joins it with one
 * entry (its name, how its text is read, how it is written), and everything else (reading the address at
 * load, the notices about bad values, the address bar, Copy link, the README's table) follows from it.
 *
 * Pure (strings in, settings and strings out), so it is unit-tested without a DOM. What the page does with it
 * (values from the address win over the stored ones for that page load; the address bar follows the choices
 * made on the page) is in App.tsx and use-persisted-settings.ts; the model named in a link is checked against
 * the gateway's list once it is known (model-choice.ts).
 */
import { FRAME_SIZE_STEPS, type FrameSize } from '../capture/frame-size.ts';
import { RUN_ON_CHOICES } from '../frame-routes/run-on.ts';
import { THREAD_CHOICES, type ThreadsSetting } from '../inference/threads.ts';
import { LINK_CHOICES, runnableLink } from '../link/link-check.ts';
import { CAMERA_NAME_EXPECTS, parseCameraName } from '../scene-rules/camera-name.ts';
import { BOX_MODES } from '../tracking/box-mode.ts';
import { MAX_IN_FLIGHT, MIN_IN_FLIGHT } from '../transport/frame-sender.ts';
import { STREAM_CODECS } from '../transport/stream-codecs.ts';
import { TRANSPORTS } from '../transport/transports.ts';
import { MAX_VIDEO_BITRATE_KBPS, MIN_VIDEO_BITRATE_KBPS } from '../video/video-bitrate.ts';
import { STATS_WINDOWS, type StreamSettings } from './settings.ts';

/** One setting as a query parameter. */
export interface UrlParam {
  name: string;
  /** The setting it sets, and its control's name on the page. */
  key: keyof StreamSettings;
  label: string;
  /** The values it takes, in words: shown in the README's table and in the notice about a value it cannot take. */
  expects: string;
  /**
   * Written into shared links and the address bar. Read-only parameters set this page load only: `paused`
   * (a moment, not a choice) and `mirror` (it depends on the camera of whoever opens the link).
   */
  shared: boolean;
  /** The setting for a value, or undefined when the value is not one it takes. */
  read: (raw: string) => Partial<StreamSettings> | undefined;
  /** The value for the current settings; undefined when there is none to write (no model known yet). */
  write: (settings: StreamSettings) => string | undefined;
}

interface ParamSpec<K extends keyof StreamSettings> {
  name: string;
  key: K;
  label: string;
  expects: string;
  shared?: boolean;
  parse: (raw: string) => StreamSettings[K] | undefined;
  format: (value: StreamSettings[K]) => string | undefined;
}

/** Typed at the entry, erased in the table: each entry checks its own parse and format against its setting. */
function param<K extends keyof StreamSettings>({ name, key, label, expects, shared = true, parse, format }: ParamSpec<K>): UrlParam {
  return {
    name,
    key,
    label,
    expects,
    shared,
    read: (raw) => {
      const value = parse(raw);
      return value === undefined ? undefined : ({ [key]: value } as Partial<StreamSettings>);
    },
    write: (settings) => format(settings[key]),
  };
}

function oneOf<T extends string>(choices: readonly T[]): (raw: string) => T | undefined {
  return (raw) => choices.find((choice) => choice === raw.trim().toLowerCase());
}

const TRUE_WORDS = ['on', 'true', '1', 'yes', ''];
const FALSE_WORDS = ['off', 'false', '0', 'no'];

/** on/off (also true/false, 1/0, yes/no); the name alone (`?paused`) is on. */
function onOff(raw: string): boolean | undefined {
  const word = raw.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return undefined;
}

const formatOnOff = (value: boolean): string => (value ? 'on' : 'off');

/** A whole number in [min, max], written in plain digits. */
function integerIn(min: number, max: number): (raw: string) => number | undefined {
  return (raw) => {
    const text = raw.trim();
    if (!/^\d{1,7}$/.test(text)) return undefined;
    const value = Number(text);
    return value >= min && value <= max ? value : undefined;
  };
}

/** A decimal number in [min, max] (`0.4`, `.4`, `1`). */
function decimalIn(min: number, max: number): (raw: string) => number | undefined {
  return (raw) => {
    const text = raw.trim();
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) return undefined;
    const value = Number(text);
    return value >= min && value <= max ? value : undefined;
  };
}

/** At most `digits` decimals, no trailing zeros: 0.5, 0.35. */
function formatDecimal(value: number, digits = 4): string {
  return String(Number(value.toFixed(digits)));
}

/** Frame sizes a link may ask for: "auto", "native", or a long side in px between these. */
export const MIN_URL_FRAME_SIZE = 32;
export const MAX_URL_FRAME_SIZE = FRAME_SIZE_STEPS[FRAME_SIZE_STEPS.length - 1]!;
export const MAX_AB_EVERY = 1000;

function parseFrameSizeParam(raw: string): FrameSize | undefined {
  const word = raw.trim().toLowerCase();
  if (word === 'auto' || word === 'native') return word;
  return integerIn(MIN_URL_FRAME_SIZE, MAX_URL_FRAME_SIZE)(word);
}

function parseThreads(raw: string): ThreadsSetting | undefined {
  const word = raw.trim().toLowerCase();
  return THREAD_CHOICES.find((choice) => String(choice) === word);
}

/** Model names are folder names: kept as written (the gateway's list decides, once it is known). */
function parseModelName(raw: string): string | undefined {
  const name = raw.trim();
  return name.length > 0 && name.length <= 200 ? name : undefined;
}

/**
 * Every setting of the dashboard as a query parameter, in the order they are written.
 */
export const URL_PARAMS: readonly UrlParam[] = [
  param({ name: 'codec', key: 'codec', label: 'Codec', expects: STREAM_CODECS.join(', '), parse: oneOf(STREAM_CODECS), format: String }),
  param({
    name: 'transport',
    key: 'transport',
    label: 'Transport',
    expects: TRANSPORTS.join(' or '),
    parse: oneOf(TRANSPORTS),
    format: String,
  }),
  param({
    name: 'bitrate',
    key: 'videoBitrate',
    label: 'Video bitrate',
    expects: `${MIN_VIDEO_BITRATE_KBPS} to ${MAX_VIDEO_BITRATE_KBPS} (kbit/s)`,
    parse: integerIn(MIN_VIDEO_BITRATE_KBPS, MAX_VIDEO_BITRATE_KBPS),
    format: String,
  }),
  param({ name: 'run', key: 'runOn', label: 'Run on', expects: RUN_ON_CHOICES.join(', '), parse: oneOf(RUN_ON_CHOICES), format: String }),
  param({
    name: 'model',
    key: 'model',
    label: 'Model',
    expects: 'the name of a model the gateway serves',
    parse: parseModelName,
    format: (model) => model,
  }),
  param({
    name: 'threshold',
    key: 'threshold',
    label: 'Score threshold',
    expects: 'a score from 0 to 1',
    parse: decimalIn(0, 1),
    format: (v) => formatDecimal(v),
  }),
  param({ name: 'boxes', key: 'boxes', label: 'Boxes', expects: BOX_MODES.join(' or '), parse: oneOf(BOX_MODES), format: String }),
  param({ name: 'ab', key: 'abMode', label: 'A/B mode', expects: 'on or off', parse: onOff, format: formatOnOff }),
  param({
    name: 'ab-every',
    key: 'abEvery',
    label: 'A/B mode: frames per codec',
    expects: `1 to ${MAX_AB_EVERY}`,
    parse: integerIn(1, MAX_AB_EVERY),
    format: String,
  }),
  param({
    name: 'in-flight',
    key: 'maxInFlight',
    label: 'Frames in flight',
    expects: `${MIN_IN_FLIGHT} to ${MAX_IN_FLIGHT}`,
    parse: integerIn(MIN_IN_FLIGHT, MAX_IN_FLIGHT),
    format: String,
  }),
  param({
    name: 'size',
    key: 'frameSize',
    label: 'Frame size (long side)',
    expects: `auto, native, or ${MIN_URL_FRAME_SIZE} to ${MAX_URL_FRAME_SIZE} (px)`,
    parse: parseFrameSizeParam,
    format: String,
  }),
  param({
    name: 'quality',
    key: 'jpegQuality',
    label: 'JPEG quality',
    expects: '10 to 100 (percent)',
    parse: (raw) => {
      const percent = integerIn(10, 100)(raw);
      return percent === undefined ? undefined : percent / 100;
    },
    format: (quality) => String(Math.round(quality * 100)),
  }),
  param({
    name: 'threads',
    key: 'deviceThreads',
    label: 'On-device threads',
    expects: THREAD_CHOICES.join(', '),
    parse: parseThreads,
    format: String,
  }),
  param({
    name: 'stats',
    key: 'statsWindow',
    label: 'Statistics window (codec comparison)',
    expects: `${STATS_WINDOWS.join(', ')} (samples)`,
    parse: (raw) => STATS_WINDOWS.find((size) => String(size) === raw.trim()),
    format: String,
  }),
  param({
    name: 'link',
    key: 'link',
    label: 'Link',
    expects: `${LINK_CHOICES.map((preset) => preset.name).join(', ')}, or a spec such as bw=2mbit/10mbit,delay=40ms (loss only over WebRTC)`,
    // Loss too, which WebRTC runs (with the WebSocket chosen, the page runs the link without it and says so).
    parse: runnableLink,
    format: String,
  }),
  param({
    name: 'camera',
    key: 'camera',
    label: 'Camera',
    expects: CAMERA_NAME_EXPECTS,
    // Kept as written: names are case-sensitive.
    parse: parseCameraName,
    format: String,
  }),
  param({ name: 'mirror', key: 'mirror', label: 'Mirror view', expects: 'on or off', shared: false, parse: onOff, format: formatOnOff }),
  param({ name: 'paused', key: 'paused', label: 'Pause', expects: 'on or off', shared: false, parse: onOff, format: formatOnOff }),
];

/**
 * Parameters of the page that are not settings, left as they are: `debug` (the overlay's draw log,
 * overlay/draw-log.ts) and `token` (the gateway turns it into a cookie and takes it out of the address
 * before the page loads; without a token in force it is left there and means nothing).
 */
export const PAGE_PARAMS: readonly string[] = ['debug', 'token'];

/** A parameter the address carried that was not used: `message` is a clause, several make one notice (`urlProblemsText`). */
export interface UrlProblem {
  param: string;
  message: string;
}

/** The notice for what the address asked for and did not get: one sentence. */
export function urlProblemsText(problems: readonly UrlProblem[]): string {
  return `From the address: ${problems.map((problem) => problem.message).join('; ')}.`;
}

export interface LinkedSettings {
  /** The settings the address sets, for this page load. */
  settings: Partial<StreamSettings>;
  /** One per parameter not used (unknown name, value it cannot take, given twice). */
  problems: UrlProblem[];
  /** Whether the address named any setting at all (valid or not). */
  present: boolean;
}

const MAX_SHOWN = 40;
const shown = (text: string): string => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);

function byName(name: string): UrlParam | undefined {
  const lower = name.trim().toLowerCase();
  return URL_PARAMS.find((entry) => entry.name === lower);
}

/** The settings a page address (`location.search`) sets, and what it asked for that cannot be done. */
export function readUrlSettings(search: string): LinkedSettings {
  const query = new URLSearchParams(search);
  const settings: Partial<StreamSettings> = {};
  const problems: UrlProblem[] = [];
  let present = false;
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (seen.has(name) || name === '') continue;
    seen.add(name);
    if (PAGE_PARAMS.includes(name)) continue;
    const entry = byName(name);
    if (!entry) {
      problems.push({
        param: name,
        message: `“${shown(name)}” ignored, no such setting (the settings: ${URL_PARAMS.map((p) => p.name).join(', ')})`,
      });
      continue;
    }
    present = true;
    const values = query.getAll(name);
    const raw = values[values.length - 1]!;
    if (values.length > 1 && new Set(values).size > 1) {
      problems.push({
        param: entry.name,
        message: `${entry.name} given ${values.length} times, the last (${shown(raw)}) used`,
      });
    }
    const patch = entry.read(raw);
    if (patch) Object.assign(settings, patch);
    else problems.push({ param: entry.name, message: `${entry.name}=${shown(raw)} ignored, expected ${entry.expects}` });
  }
  return { settings, problems, present };
}

/**
 * A value as a query holds it: percent-encoded, except for the characters a query may carry as they are
 * (RFC 3986: `/ , = :`), so a link spec reads as it is typed (`link=bw=2mbit/10mbit,delay=40ms`).
 */
function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/%(2F|2C|3D|3A)/gi, (escaped) => decodeURIComponent(escaped));
}

/** `name=value` pairs of the shared settings, in table order. */
function settingPairs(settings: StreamSettings): string[] {
  const pairs: string[] = [];
  for (const entry of URL_PARAMS) {
    if (!entry.shared) continue;
    const value = entry.write(settings);
    if (value !== undefined) pairs.push(`${entry.name}=${encodeQueryValue(value)}`);
  }
  return pairs;
}

/**
 * The address bar's query for these settings: the page's other parameters kept as they were written
 * (`?debug` stays `debug`, not `debug=`), every setting parameter replaced by the current shared settings.
 */
export function searchWithSettings(search: string, settings: StreamSettings): string {
  const kept = search
    .replace(/^\?/, '')
    .split('&')
    .filter((segment) => {
      if (segment === '') return false;
      const name = safeDecode(segment.split('=')[0]!.replaceAll('+', ' '));
      return byName(name) === undefined;
    });
  const all = [...kept, ...settingPairs(settings)];
  return all.length > 0 ? `?${all.join('&')}` : '';
}

/** The link Copy link gives: this page with the shared settings and nothing else (never the token, nor `debug`). */
export function shareLink(location: Pick<Location, 'origin' | 'pathname'>, settings: StreamSettings): string {
  const pairs = settingPairs(settings);
  return `${location.origin}${location.pathname}${pairs.length > 0 ? `?${pairs.join('&')}` : ''}`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
