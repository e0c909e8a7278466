/** Cell measurements and outcomes made by hand, for the links tests. */
import { parseLinkSpec } from '@sightline/shared/link';
import type { CellMeasurement, LinkEntry, TransportRow } from '../../../links/cell.ts';
import type { CellOutcome } from '../../../links/runner.ts';

export function measurement(partial: Partial<CellMeasurement> = {}): CellMeasurement {
  const latenciesMs = partial.latenciesMs ?? [100, 200, 300];
  const ok = partial.ok ?? latenciesMs.length;
  return {
    sent: ok,
    ok,
    refused: 0,
    lost: 0,
    reasons: {},
    wallMs: 1000,
    latenciesMs,
    serverMs: latenciesMs.map(() => 10),
    answered: ok,
    answeredBytesUp: ok * 1000,
    answeredBytesDown: ok * 100,
    sentBytesUp: ok * 1000,
    commands: [],
    ...partial,
  };
}

export function link(name: string, spec = name, title = name): LinkEntry {
  return { name, title, spec, profile: parseLinkSpec(spec) };
}

export function row(id: string, paths: TransportRow['paths'] = ['proxy', 'packet']): TransportRow {
  return { id, transport: `T ${id}`, codec: `C ${id}`, paths, run: () => Promise.reject(new Error('not run in this test')) };
}

export function outcome(l: LinkEntry, id: string, m: CellMeasurement | undefined, extra: Partial<CellOutcome> = {}): CellOutcome {
  return { link: l, row: { id, transport: `T ${id}`, codec: `C ${id}` }, path: 'proxy', ...(m ? { measurement: m } : {}), ...extra };
}
