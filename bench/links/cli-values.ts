/** Parsers of option values shared by `bench:links` and `bench:links-seeds`. */
import { InvalidArgumentError } from 'commander';

/** A comma-separated list, entries trimmed, empty ones dropped. */
export const list = (value: string): string[] =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A parser of a positive integer or number that commander reports as the option's error. */
export function positive(kind: 'integer' | 'number') {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || (kind === 'integer' && !Number.isInteger(n)))
      throw new InvalidArgumentError(`a positive ${kind}.`);
    return n;
  };
}
