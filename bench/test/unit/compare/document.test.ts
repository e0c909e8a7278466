import { describe, expect, it } from 'vitest';
import { CURRENT_CLIENT } from '../../../compare/bench-client.ts';
import { clientSentence, compareSection, invocation, type CompareReport } from '../../../compare/document.ts';
import { poolHalves } from '../../../compare/figures.ts';
import type { CompareOptions } from '../../../compare/options.ts';
import type { ServerResults } from '../../../compare/tables.ts';
import { compareOptions } from '../../support/compare-options.ts';
import { benchResult, measurement, TEST_RUN_CONTEXT } from '../../support/measurements.ts';

const options = (o: Partial<CompareOptions>) => compareOptions({ preset: 'ab', before: '/tmp/before/gateway', ...o });

const cell = (latencyMs: number) => poolHalves([benchResult(Array.from({ length: 4 }, (_, i) => measurement({ seq: i, latencyMs })))]);
const server = (name: string, role: ServerResults['role']): ServerResults => ({ name, role, cells: { one: cell(10), six: cell(40) } });
const older = { description: 'the benchmark client of /tmp/before (protocol 1)', protocol: 1 };

function report(o: Partial<CompareReport> = {}): CompareReport {
  return {
    options: options({}),
    context: { ...TEST_RUN_CONTEXT, checkouts: { before: 'commit 6d8955d', after: 'commit 96be6cb' } },
    servers: [server('before', 'before'), server('after', 'after')],
    clients: [CURRENT_CLIENT, CURRENT_CLIENT],
    setup: ['BEFORE=http://127.0.0.1:8080'],
    commands: ['pnpm bench --url "$BEFORE" --frames 150'],
    unanswered: 0,
    failures: [],
    ...o,
  };
}

describe('compare: the generated section', () => {
  it('names the command that made it, with only the options that differ from the defaults', () => {
    expect(invocation(options({}))).toBe('pnpm bench:compare --preset ab --before /tmp/before/gateway');
    expect(invocation(options({ client: 'own', repeats: 4, scale: 0.05 }))).toBe(
      'pnpm bench:compare --preset ab --before /tmp/before/gateway --client own --repeats 4 --scale 0.05',
    );
    expect(invocation(options({ preset: 'engine', before: undefined, maxBatch: 8, remoteWorkers: 6, queueDelayUs: 100 }))).toBe(
      'pnpm bench:compare --preset engine --max-batch 8 --remote-workers 6 --queue-delay-us 100',
    );
  });

  it('says which client drove which server, and what an older one does not do', () => {
    const servers = [server('before', 'before'), server('after', 'after')];
    expect(clientSentence({ servers, clients: [CURRENT_CLIENT, CURRENT_CLIENT] })).toBe(
      `Every server driven by ${CURRENT_CLIENT.description}.`,
    );
    expect(clientSentence({ servers, clients: [older, older] })).toContain('The client of *before*, *after* predates `retryAfterMs`');
    const own = clientSentence({ servers, clients: [older, CURRENT_CLIENT] });
    expect(own).toContain(`*before* by ${older.description}; *after* by ${CURRENT_CLIENT.description}`);
    expect(own).toContain('The client of *before* predates');
  });

  it('holds the setup, the table, the ratios and the exact commands', () => {
    const text = compareSection(report());
    expect(text.startsWith('## A/B of a gateway change\n')).toBe(true);
    expect(text).toContain('`/tmp/before/gateway` (commit 6d8955d)');
    expect(text).toContain('1 client: 150 frames a half; 6 clients: 15 s a half');
    expect(text).toContain('| before | 1 | 10.0 |');
    expect(text).toContain('- 1 client, p50: after 10.0 ms / before 10.0 ms = **1.00x**');
    expect(text).toContain('```sh\nBEFORE=http://127.0.0.1:8080\npnpm bench --url "$BEFORE" --frames 150\n```');
    expect(text).not.toContain('Warning');
    expect(text).not.toContain('Scaled run');
  });

  it('warns about a scaled run, a busy machine, lost frames, failed clients and servers left out', () => {
    const base = report();
    const text = compareSection({
      ...base,
      options: options({ scale: 0.05 }),
      context: { ...base.context, loadAfter: 3.5 },
      unanswered: 2,
      failures: ['after, 6 clients: client 3: connection lost'],
      notMeasured: ['FastAPI + OpenCV did not start: no python3'],
    });
    expect(text).toContain('**Scaled run (--scale 0.05)');
    expect(text).toContain('**Warning: the machine was busy (load average up to 3.5 on 2 cores)');
    expect(text).toContain('**Warning: 2 frame(s) went unanswered');
    expect(text).toContain('**Warning: clients failed during this run: after, 6 clients: client 3: connection lost.**');
    expect(text).toContain('**Not measured:** FastAPI + OpenCV did not start: no python3.');
  });

  it("describes the engine preset's servers, and its engine table when a row ran on Triton", () => {
    const remote: ServerResults = {
      ...server('Triton, batching off', 'remote'),
      engine: {
        one: { requests: 4, failures: 0, inferences: 4, executions: 4, requestUs: 20_000, queueUs: 0, computeUs: 16_000 },
        six: { requests: 4, failures: 0, inferences: 4, executions: 2, requestUs: 80_000, queueUs: 8_000, computeUs: 60_000 },
      },
    };
    const text = compareSection(
      report({
        options: options({ preset: 'engine', before: undefined, remoteWorkers: 6 }),
        servers: [server('local, batch 1', 'local'), remote],
      }),
    );
    expect(text.startsWith('## Serving engine: local inference vs Triton, batching, and the OpenCV peer\n')).toBe(true);
    expect(text).toContain('at most as many as the gateway has workers (6 there)');
    expect(text).toContain('| Triton, batching off | 6 | 4 | 2.00 | 20.0 |');
    expect(text).toContain('- The remote hop at 1 client');
  });
});
