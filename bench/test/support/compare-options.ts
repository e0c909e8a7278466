/** `pnpm bench:compare`'s options as the compare tests build them. */
import { COMPARE_DEFAULTS, type CompareOptions, type Preset } from '../../compare/options.ts';

/** The options `pnpm bench:compare --preset P` parses to (nothing written), with `o` over them. */
export function compareOptions(o: Partial<CompareOptions> & { preset: Preset }): CompareOptions {
  return {
    ...COMPARE_DEFAULTS,
    before: undefined,
    client: 'same',
    remoteWorkers: COMPARE_DEFAULTS.workers,
    write: false,
    out: '/dev/null',
    ...o,
  };
}
