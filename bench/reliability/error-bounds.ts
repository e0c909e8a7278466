/**
 * `pnpm bench:error-bounds`: do refusals stay small? (1) The error reply to a frame with a ~189 kB unknown
 * key, over the WebSocket in both codecs and over HTTP: how many bytes come back. (2) What 100 text frames
 * of invalid UTF-8 (each closes its connection, as RFC 6455 requires) leave in the gateway's log: lines,
 * and lines carrying stack traces. The second needs a gateway this script starts (it reads its output).
 */
import { Command } from 'commander';
import { DETECT_PATH, JSON_CONTENT_TYPE, MSGPACK_CONTENT_TYPE, type Codec } from '@sightline/shared/protocol';
import { nextAnswer, observe, openGreeted } from '../fuzz/answers.ts';
import { httpProbe } from '../fuzz/http-probe.ts';
import { encodeValue } from '../fuzz/wire-input.ts';
import { cameraFrame } from './scenario-frames.ts';
import { num, targetFrom, withTargetOptions, type TargetOptions } from './scenario-options.ts';
import { figuresSection, publishSection } from '../report.ts';

const program = withTargetOptions(
  new Command('bench:error-bounds')
    .description('Size of the error reply to a huge unknown key, and log lines from a flood of invalid UTF-8 frames.')
    .option('--key-bytes <n>', 'length of the unknown key', '189000')
    .option('--flood <n>', 'invalid UTF-8 text frames, one connection each', '100'),
);
program.parse();
const o = program.opts<TargetOptions & { keyBytes: string; flood: string }>();
const keyBytes = num(o.keyBytes, 'key-bytes', 1);
const flood = num(o.flood, 'flood', 1);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const target = await targetFrom(o);
let exitCode = 0;
try {
  const frame = await cameraFrame();
  const body = { image: frame.bytes, id: 7, ts: 1 };
  const withKey = (value: Record<string, unknown>) => ({ ...value, ['k'.repeat(keyBytes)]: 1 });
  const rows: string[][] = [];

  for (const codec of ['json', 'msgpack'] as Codec[]) {
    const socket = await openGreeted(target.url, 10_000);
    const data = encodeValue(withKey({ type: 'frame', ...body }), codec);
    socket.sendRaw(data, { text: codec === 'json' });
    const event = await nextAnswer(socket, 10_000);
    const seen = event ? observe(event) : { outcome: 'timeout' as const, replyBytes: 0, message: '' };
    rows.push([
      `WebSocket ${codec}: reply to a frame with a ${keyBytes.toLocaleString('en-US')}-char unknown key`,
      `${seen.outcome}, ${(seen.replyBytes ?? 0).toLocaleString('en-US')} bytes (message ${(seen.message ?? '').length.toLocaleString('en-US')} chars)`,
    ]);
    await socket.close(1000);
  }
  for (const codec of ['json', 'msgpack'] as Codec[]) {
    const seen = await httpProbe(
      target.url,
      {
        channel: 'http',
        method: 'POST',
        path: DETECT_PATH,
        headers: { 'content-type': codec === 'json' ? JSON_CONTENT_TYPE : MSGPACK_CONTENT_TYPE, accept: JSON_CONTENT_TYPE },
        body: encodeValue(withKey(body), codec),
      },
      10_000,
    );
    rows.push([
      `HTTP ${codec} body: reply to the same key`,
      `${seen.outcome}, ${(seen.replyBytes ?? 0).toLocaleString('en-US')} bytes (message ${(seen.message ?? '').length.toLocaleString('en-US')} chars)`,
    ]);
  }

  const before = target.owned ? { ...target.owned.tally } : undefined;
  const closes: Record<string, number> = {};
  const invalid = new Uint8Array([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x22, 0x7d]); // {"t\xff\xfe"}
  for (let i = 0; i < flood; i++) {
    const socket = await openGreeted(target.url, 10_000);
    socket.sendRaw(invalid, { text: true });
    const event = await nextAnswer(socket, 5000);
    const key = event ? observe(event).outcome : 'timeout';
    closes[key] = (closes[key] ?? 0) + 1;
    socket.terminate();
  }
  await sleep(1000); // the gateway's last lines reach its stdout
  rows.push([
    `${flood} text frames of invalid UTF-8: what the clients got`,
    Object.entries(closes)
      .map(([k, v]) => `${k} x${v}`)
      .join(', '),
  ]);
  if (target.owned && before) {
    const lines = target.owned.tally.lines - before.lines;
    const stack = target.owned.tally.stackLines - before.stackLines;
    rows.push([
      `gateway log lines from them (with stack traces)`,
      `${lines} (${stack}), ${(target.owned.tally.bytes - before.bytes).toLocaleString('en-US')} bytes`,
    ]);
  }

  if (o.json) console.log(JSON.stringify({ gateway: target.label, rows: Object.fromEntries(rows) }));
  else console.log(rows.map(([k, v]) => `${k}: ${v}`).join('\n'));
  if (o.write) {
    const command = `pnpm bench:error-bounds --key-bytes ${keyBytes} --flood ${flood} --write`;
    publishSection('error-bounds', figuresSection('Error replies and logs stay bounded', command, target.label, rows));
  }
} catch (error) {
  exitCode = 1;
  process.stderr.write(`error-bounds failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  await target.owned?.stop();
}
process.exit(exitCode);
