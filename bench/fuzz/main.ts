/**
 * `pnpm bench:fuzz`: seeded malformed input against a gateway, every answer judged (see run-fuzz.ts).
 * Starts the gateway itself from --gateway-dir (default: this repository's), or uses one at --url.
 * Exit 0 when every case was answered correctly and the gateway is alive, 1 otherwise.
 */
import { Command } from 'commander';
import { CATEGORIES, type Category } from './fuzz-case.ts';
import { formatFuzzReport, groupFailures } from './fuzz-report.ts';
import { DEFAULT_MAX_MESSAGES_PER_SECOND, runFuzz } from './run-fuzz.ts';
import { openTarget } from '../reliability/gateway-under-test.ts';
import { mb } from '../reliability/process-stats.ts';
import { callerPath } from '../cli.ts';
import { figuresSection, publishSection } from '../report.ts';

const program = new Command('bench:fuzz')
  .description('Seeded malformed input (WebSocket both codecs, HTTP, raw TCP) against a gateway; every answer judged.')
  .option('--cases <n>', 'cases to send', '1000')
  .option('--seed <n>', 'seed of the case generator', '1')
  .option('--start <index>', 'first case index (replay one: --start I --cases 1)', '0')
  .option('--categories <list>', `comma-separated subset of: ${CATEGORIES.join(', ')}`)
  .option('--timeout <ms>', 'a case without an answer in this time fails', '5000')
  .option('--idle <s>', 'seconds of rest before the last memory reading', '10')
  .option(
    '--max-rate <n>',
    "messages per second on the runner's WebSocket, below the gateway's rate limit",
    String(DEFAULT_MAX_MESSAGES_PER_SECOND),
  )
  .option('--gateway-dir <dir>', 'start the gateway from this package folder (default: this repository)')
  .option('--url <url>', 'use a gateway already running here instead')
  .option('--pid <pid>', "with --url: the gateway's pid, for its memory")
  .option('--json', 'print the report as JSON')
  .option('--write', 'also replace the fuzz section of docs/runs/fuzz.md')
  .parse();
const o = program.opts<{
  cases: string;
  seed: string;
  start: string;
  categories?: string;
  timeout: string;
  idle: string;
  maxRate: string;
  gatewayDir?: string;
  url?: string;
  pid?: string;
  json?: boolean;
  write?: boolean;
}>();

const categories = o.categories?.split(',').map((c) => c.trim()) as Category[] | undefined;
const unknown = categories?.filter((c) => !(CATEGORIES as readonly string[]).includes(c));
if (unknown?.length) {
  process.stderr.write(`unknown categories: ${unknown.join(', ')}\n`);
  process.exit(2);
}

const target = await openTarget({
  url: o.url,
  pid: o.pid === undefined ? undefined : Number(o.pid),
  ...(o.gatewayDir ? { gatewayDir: callerPath(o.gatewayDir) } : {}),
  env: { LOG_LEVEL: 'warn' },
});
let exitCode: number;
try {
  const cases = Number(o.cases);
  const report = await runFuzz({
    url: target.url,
    seed: Number(o.seed),
    cases,
    startIndex: Number(o.start),
    timeoutMs: Number(o.timeout),
    idleMs: Number(o.idle) * 1000,
    maxMessagesPerSecond: Number(o.maxRate),
    ...(categories ? { categories } : {}),
    ...(target.pid === undefined ? {} : { pid: target.pid }),
    onCase: (_record, done) => {
      if (done % 100 === 0 && !o.json) process.stderr.write(`\r${done}/${cases}`);
    },
  });
  if (!o.json) process.stderr.write('\r');
  process.stdout.write(o.json ? `${JSON.stringify(report)}\n` : `gateway: ${target.label}\n${formatFuzzReport(report)}\n`);
  if (target.owned)
    process.stdout.write(
      o.json ? '' : `gateway log: ${target.owned.tally.lines} lines, ${target.owned.tally.stackLines} with stack traces\n`,
    );
  if (o.write) {
    const rows = Object.entries(report.byCategory).map(([category, s]) => [
      category,
      String(s.cases),
      String(s.failed),
      Object.entries(s.outcomes)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} x${v}`)
        .join(', '),
    ]);
    const totals = [
      `Passed ${report.passed}, failed ${report.failed}; unanswered ${report.unanswered}, internal errors ${report.internalErrors}, ` +
        `connection failures ${report.connectionFailures}; largest reply ${report.maxReplyBytes} bytes, longest error message ` +
        `${report.maxErrorMessageChars} chars; gateway alive at the end: ${report.aliveAtEnd && !report.crashed ? 'yes' : 'no'}` +
        (report.rssKb
          ? `; RSS before ${mb(report.rssKb.before)}, after ${mb(report.rssKb.after)}, after ${report.rssKb.idleMs / 1000} s idle ${mb(report.rssKb.afterIdle)}.`
          : '.'),
      ...groupFailures(report.failures).map(
        (g) => `- ${g.count} x ${g.category}, got ${g.got}: ${g.problem} (e.g. #${g.example.index} "${g.example.name}")`,
      ),
    ];
    const command = `pnpm bench:fuzz --cases ${cases} --seed ${report.seed} --write`;
    publishSection(
      'fuzz',
      [figuresSection('Fuzz', command, target.label, rows, ['category', 'cases', 'failed', 'outcomes']), '', ...totals].join('\n'),
    );
  }
  exitCode = report.failed === 0 && report.aliveAtEnd && !report.crashed ? 0 : 1;
} finally {
  await target.owned?.stop();
}
process.exit(exitCode);
