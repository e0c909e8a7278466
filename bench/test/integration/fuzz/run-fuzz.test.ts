/**
 * Seeded malformed input against a real gateway child process: every case answered as the protocol says
 * (a structured error with its code, the RFC close, an HTTP status, or detections for odd but valid
 * images), error messages bounded, the connection usable after each case (or a new one after a close),
 * and the gateway alive at the end.
 */
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORIES, MAX_ERROR_MESSAGE_CHARS } from '../../../fuzz/fuzz-case.ts';
import { formatFuzzReport, groupFailures } from '../../../fuzz/fuzz-report.ts';
import { runFuzz, type FuzzReport } from '../../../fuzz/run-fuzz.ts';

const SEED = 20_251;
const CASES = 1000;

let gateway: GatewayProcess;
let report: FuzzReport;

beforeAll(async () => {
  gateway = await startGatewayProcess({ env: { LOG_LEVEL: 'warn' } });
  report = await runFuzz({
    url: gateway.url,
    seed: SEED,
    cases: CASES,
    timeoutMs: 5000,
    idleMs: 0,
    ...(gateway.pid ? { pid: gateway.pid } : {}),
  });
  // The whole picture once, whatever fails below.
  console.log(formatFuzzReport(report));
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
});

/** The failures of one kind, one line per group, for assertion messages. */
function failuresWhere(test: (problem: string) => boolean): string[] {
  return groupFailures(report.failures.filter((f) => f.problems.some(test))).map(
    (g) => `${g.count} x ${g.category}, got ${g.got}: ${g.problem} (e.g. #${g.example.index} ${g.example.channel} "${g.example.name}")`,
  );
}

describe(`fuzz: ${CASES} seeded cases (seed ${SEED}) against a real gateway`, () => {
  it('ran every case, over every category', () => {
    expect(report.ran).toBe(CASES);
    expect(Object.keys(report.byCategory).sort()).toEqual([...CATEGORIES].sort());
  });

  it('answered every case, within the time limit', () => {
    expect(report.unanswered, failuresWhere((p) => /timeout|tcp:open/.test(p)).join('\n')).toBe(0);
  });

  it('answered every case as the protocol says (code, id, size, close)', () => {
    expect(failuresWhere((p) => p.startsWith('expected') || p.startsWith('reply id') || p.startsWith('reported'))).toEqual([]);
  });

  it('never answered with internal, or with a reply that breaks the protocol', () => {
    expect(report.internalErrors).toBe(0);
    expect(report.invalidReplies).toBe(0);
  });

  it(`quotes at most a short excerpt of the input in an error (<= ${MAX_ERROR_MESSAGE_CHARS} chars)`, () => {
    expect(failuresWhere((p) => p.startsWith('error message of'))).toEqual([]);
    expect(report.maxErrorMessageChars).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
  });

  it('kept each connection usable after its case (or a new one after a close), with one answer per message', () => {
    expect(failuresWhere((p) => /connection|second answer|valid frame|healthy/.test(p))).toEqual([]);
    expect(report.extraReplies).toBe(0);
  });

  it('is alive at the end', () => {
    expect(report.crashed).toBe(false);
    expect(report.aliveAtEnd).toBe(true);
    expect(gateway.running).toBe(true);
  });
});
