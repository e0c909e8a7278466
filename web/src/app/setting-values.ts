/**
 * The kinds of value a dashboard setting takes (the table in settings.ts): for each kind, the one check of a
 * value, whether it was stored or came from the address, and how it is read from and written as query text.
 * Pure, so it is unit-tested without a DOM.
 */

export interface SettingValues<T> {
  /** Whether a value is one the setting takes: what storage keeps and what the address may set. */
  valid(value: unknown): value is T;
  /** A query value's text as the value it names, if any; `readValue` checks it with `valid`. */
  fromText(raw: string): unknown;
  /** The query text for a value; undefined when there is none to write (no model known yet). */
  toText(value: T): string | undefined;
}

/** The value a query parameter's text names, or undefined when it names none the setting takes. */
export function readValue<T>(values: SettingValues<T>, raw: string): T | undefined {
  const value = values.fromText(raw);
  return values.valid(value) ? value : undefined;
}

const word = (raw: string): string => raw.trim().toLowerCase();

/** One of `choices`, read in any case. */
export function choiceOf<T extends string | number>(choices: readonly T[]): SettingValues<T> {
  return {
    valid: (value): value is T => choices.includes(value as T),
    fromText: (raw) => choices.find((choice) => String(choice) === word(raw)),
    toText: String,
  };
}

const TRUE_WORDS = ['on', 'true', '1', 'yes', ''];
const FALSE_WORDS = ['off', 'false', '0', 'no'];

/** on/off (also true/false, 1/0, yes/no); the name alone (`?paused`) is on. */
export const onOff: SettingValues<boolean> = {
  valid: (value): value is boolean => typeof value === 'boolean',
  fromText: (raw) => {
    const text = word(raw);
    return TRUE_WORDS.includes(text) ? true : FALSE_WORDS.includes(text) ? false : undefined;
  },
  toText: (value) => (value ? 'on' : 'off'),
};

const between = (value: unknown, min: number, max: number): value is number => typeof value === 'number' && value >= min && value <= max;

/** Plain digits as a number, else undefined. */
function digits(raw: string): number | undefined {
  const text = raw.trim();
  return /^\d{1,7}$/.test(text) ? Number(text) : undefined;
}

/** A whole number in [min, max], written in plain digits. */
export function wholeNumber(min: number, max: number): SettingValues<number> {
  return {
    valid: (value): value is number => Number.isInteger(value) && between(value, min, max),
    fromText: digits,
    toText: String,
  };
}

/** A decimal number in [min, max] (`0.4`, `.4`, `1`), written with at most 4 decimals and no trailing zeros. */
export function decimal(min: number, max: number): SettingValues<number> {
  return {
    valid: (value): value is number => between(value, min, max),
    fromText: (raw) => (/^(\d+(\.\d*)?|\.\d+)$/.test(raw.trim()) ? Number(raw.trim()) : undefined),
    toText: (value) => String(Number(value.toFixed(4))),
  };
}

/** A fraction in [min, max] percent, written as a whole percent (0.8 is `80`). */
export function percent(min: number, max: number): SettingValues<number> {
  return {
    valid: (value): value is number => between(value, min / 100, max / 100),
    fromText: (raw) => {
      const whole = digits(raw);
      return whole === undefined ? undefined : whole / 100;
    },
    toText: (value) => String(Math.round(value * 100)),
  };
}

/** A value of `first`, else of `second` (`auto` or a number of pixels). */
export function either<A, B>(first: SettingValues<A>, second: SettingValues<B>): SettingValues<A | B> {
  return {
    valid: (value): value is A | B => first.valid(value) || second.valid(value),
    fromText: (raw) => readValue(first, raw) ?? second.fromText(raw),
    toText: (value) => (first.valid(value) ? first.toText(value) : second.toText(value as B)),
  };
}

/** A name kept as written (names are case-sensitive), the spaces around it dropped; `valid` says which names. */
export function nameOf(valid: (value: unknown) => value is string): SettingValues<string> {
  return { valid, fromText: (raw) => raw.trim(), toText: (value) => value };
}

/** Text that `canonical` reads and writes in its own form (a link spec); valid when it reads. */
export function canonicalText(canonical: (text: string) => string | undefined): SettingValues<string> {
  return {
    valid: (value): value is string => typeof value === 'string' && canonical(value) !== undefined,
    fromText: canonical,
    toText: (value) => value,
  };
}
