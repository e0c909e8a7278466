/**
 * How the OpenCV peer's configuration was chosen (baselines/fastapi/README.md): several variants of
 * server_opencv.py side by side, each on its own port, driven in interleaved rounds (A B C, C B A, ...) by
 * the matrix's runner with the samples pooled, so a burst of load from elsewhere hits every variant alike.
 * Per variant: 1 stop-and-wait client, 6 of them, and 6 open-loop cameras at 30 fps.
 *
 *   pnpm --filter @sightline/bench opencv-variants [--rounds 4] [--frames 120,48,90] adaptive pool shared [sightline]
 *
 * A variant is a name below (or `sightline`, the gateway, for reference). Bounded: at most 10 rounds, and
 * the servers it starts are stopped.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, InvalidArgumentError } from 'commander';
import { freePort, ServerProcess, startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { spreadStaggerMs } from '../client/pacing.ts';
import { fmt, type RunSummary } from '../client/report.ts';
import { Runner } from '../matrix/runner.ts';
import { BASELINE_VENV, PYTHON_ENV, setupPythonPeers } from './fastapi-process.ts';

const HERE = fileURLToPath(new URL('./fastapi/', import.meta.url));

/** server_opencv.py flags of each variant; every other flag keeps its default. */
export const VARIANTS: Record<string, string[]> = {
  adaptive: ['--inference', 'adaptive', '--spinning', 'default'],
  'adaptive-stop': ['--inference', 'adaptive', '--spinning', 'stop'],
  pool: ['--inference', 'pool', '--spinning', 'default'],
  shared: ['--inference', 'shared', '--spinning', 'default'],
  'shared-stop': ['--inference', 'shared', '--spinning', 'stop'],
  serial: ['--inference', 'serial', '--spinning', 'default'],
  'adaptive-full': ['--inference', 'adaptive', '--spinning', 'default', '--decode', 'full'],
  'adaptive-cv2': ['--inference', 'adaptive', '--spinning', 'default', '--cv-threads', '2'],
};

interface Server {
  name: string;
  url: string;
  stop: () => Promise<void>;
}

async function startVariant(name: string, threads: number): Promise<Server> {
  if (name === 'sightline') {
    const gateway: GatewayProcess = await startGatewayProcess({
      env: { SIGHTLINE_THREADS: String(threads), SIGHTLINE_WORKERS: String(threads) },
    });
    return { name, url: gateway.url, stop: () => gateway.stop() };
  }
  const port = await freePort();
  const server = await ServerProcess.start({
    name: `OpenCV peer (${name})`,
    command: join(BASELINE_VENV, 'bin', 'python'),
    args: [join(HERE, 'server_opencv.py'), '--port', String(port), '--threads', String(threads), ...VARIANTS[name]!],
    cwd: HERE,
    port,
    env: PYTHON_ENV,
  });
  return { name, url: server.url, stop: () => server.stop() };
}

function row(name: string, one: RunSummary, six: RunSummary, open: RunSummary): string[] {
  return [
    name,
    fmt(one.latency.p50),
    fmt(one.inferenceMs.mean),
    fmt(six.throughputFps),
    fmt(six.latency.p95),
    fmt(open.throughputFps),
    fmt(open.latency.p95),
    String(open.counts.dropped),
  ];
}

async function main(argv: string[]): Promise<void> {
  const program = new Command('opencv-variants')
    .argument('<variants...>', `${Object.keys(VARIANTS).join(', ')}, or sightline`)
    .option('--rounds <n>', 'interleaved rounds, the frames split between them', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 10) throw new InvalidArgumentError('1..10.');
      return n;
    })
    .option('--frames <a,b,c>', 'frames per client: 1 client, 6 clients, open loop (per camera)', '120,48,90')
    .option('--threads <n>', 'intra-op threads of every server', '2')
    .allowExcessArguments(false);
  program.parse(argv, { from: 'user' });
  const names = program.args;
  for (const n of names) if (n !== 'sightline' && !(n in VARIANTS)) throw new Error(`unknown variant ${n}`);
  const o = program.opts<{ rounds?: number; frames: string; threads: string }>();
  const [f1, f6, fo] = o.frames.split(',').map(Number) as [number, number, number];
  await setupPythonPeers();
  const servers: Server[] = [];
  try {
    for (const name of names) servers.push(await startVariant(name, Number(o.threads)));
    const runner = new Runner({ url: servers[0]!.url } as GatewayProcess, 1);
    const common = ['--resize', '640x480', '--transport', 'ws', '--codec', 'msgpack', '--warmup', '3'];
    const open = ['--rate', '30', '--clients', '6', '--stagger', spreadStaggerMs(30, 6).toFixed(2)];
    const cells = await runner.interleaved(
      servers.flatMap((s) => [
        { argv: ['--label', `${s.name}, 1 client`, '--url', s.url, ...common], frames: f1 },
        { argv: ['--label', `${s.name}, 6 clients`, '--url', s.url, ...common, '--clients', '6'], frames: f6 },
        { argv: ['--label', `${s.name}, open loop`, '--url', s.url, ...common, ...open], frames: fo },
      ]),
      o.rounds ?? 4,
    );
    const header = [
      'variant',
      '1 client p50 ms',
      'inference ms',
      '6 clients frames/s',
      'p95 ms',
      'open loop detected/s',
      'p95 ms',
      'dropped',
    ];
    const rows = servers.map((s, i) =>
      row(s.name, cells[i * 3]!.summary.overall, cells[i * 3 + 1]!.summary.overall, cells[i * 3 + 2]!.summary.overall),
    );
    process.stdout.write([header, ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n') + '\n');
  } finally {
    for (const s of servers) await s.stop();
  }
}

const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isEntry) {
  main(process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'))).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`opencv-variants failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
