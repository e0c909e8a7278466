/**
 * The dashboard's choices in its address, so a run can be shared and scripted:
 * `/?codec=json&run=gateway&model=blazeface-back-256`. Each setting's parameter, values and whether links
 * carry it are its row of the settings table (SETTINGS, settings.ts): reading the address at load, the
 * notices about bad values, the address bar and Copy link follow from it.
 *
 * Pure (strings in, settings and strings out), so it is unit-tested without a DOM. What the page does with it
 * (values from the address win over the stored ones for that page load; the address bar follows the choices
 * made on the page) is in App.tsx and use-persisted-settings.ts; the model named in a link is checked against
 * the gateway's list once it is known (model-choice.ts).
 */
import { readValue } from './setting-values.ts';
import { SETTING_ROWS, type SettingRow, type StreamSettings } from './settings.ts';

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

function byName(name: string): SettingRow | undefined {
  const lower = name.trim().toLowerCase();
  return SETTING_ROWS.find((row) => row.param === lower);
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
    const row = byName(name);
    if (!row) {
      problems.push({
        param: name,
        message: `“${shown(name)}” ignored, no such setting (the settings: ${SETTING_ROWS.map((other) => other.param).join(', ')})`,
      });
      continue;
    }
    present = true;
    const values = query.getAll(name);
    const raw = values[values.length - 1]!;
    if (values.length > 1 && new Set(values).size > 1) {
      problems.push({
        param: row.param,
        message: `${row.param} given ${values.length} times, the last (${shown(raw)}) used`,
      });
    }
    const value = readValue(row.values, raw);
    if (value !== undefined) (settings as Record<string, unknown>)[row.key] = value;
    else problems.push({ param: row.param, message: `${row.param}=${shown(raw)} ignored, expected ${row.expects}` });
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
  for (const row of SETTING_ROWS) {
    if (!row.shared) continue;
    const value = row.values.toText(settings[row.key]);
    if (value !== undefined) pairs.push(`${row.param}=${encodeQueryValue(value)}`);
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
