/**
 * `pnpm bench:link-fidelity`: each emulated quantity against its setting, on every path that can carry it:
 *   throughput: a bulk TCP upload, payload rate on the receiver's clock; the wire carries 1500 bytes per 1448 of payload;
 *   added round trip: median of one-byte echoes minus the same path with no link, against 2 x delay;
 *   loss: UDP datagrams through the packet path, and messages through the user-space datagram engine;
 *   bufferbloat: echoes during a bulk upload, against delay + queue;
 * beside the kernel's own shaping (tbf in the link namespace) on the same transfer where root allows.
 * Prints a markdown table (and writes it with --out FILE). Packet paths need root; without it they are skipped.
 */
import { writeFileSync } from 'node:fs';
import { DatagramLink, DeliveryPump, lossRateOf, parseLinkSpec, realTimers } from '@sightline/shared/link';
import { packetLinkUnavailable } from '../packet/packet-link.ts';
import { binomialTolerance, bulkThroughput, echoRoundTrips, median, udpDelivery } from './measure.ts';
import { startPath, type PathKind } from './paths.ts';
import { mdTable, provenance } from '../../report.ts';

const WIRE_PER_PAYLOAD = 1500 / 1448;

interface Row {
  quantity: string;
  link: string;
  path: string;
  setting: string;
  measured: string;
  tolerance: string;
  holds: boolean;
}

const rows: Row[] = [];
const fmt = (x: number, digits = 2) => x.toFixed(digits);
const root = packetLinkUnavailable() === undefined;
const packetPaths: PathKind[] = root ? ['packet-user', 'packet-kernel'] : [];

function print(row: Row): void {
  rows.push(row);
  console.error(
    `${row.holds ? 'ok  ' : 'MISS'} ${row.quantity} ${row.link} via ${row.path}: ${row.measured} (setting ${row.setting}, ${row.tolerance})`,
  );
}

async function withPath<T>(kind: PathKind, spec: string, body: (host: string, port: number) => Promise<T>): Promise<T> {
  const path = await startPath(kind, parseLinkSpec(spec));
  try {
    return await body(path.host, path.port);
  } finally {
    await path.close();
  }
}

async function throughput(): Promise<void> {
  for (const mbit of [2, 8]) {
    const spec = `bw=${mbit}mbit,delay=10ms,queue=100ms`;
    const bytes = Math.round((mbit * 1e6 * 4) / 8); // ~4 s at the rate
    for (const kind of ['proxy', ...packetPaths] as PathKind[]) {
      const result = await withPath(kind, spec, (host, port) => bulkThroughput(host, port, bytes));
      const wire = result.payloadBps * WIRE_PER_PAYLOAD;
      const ratio = wire / (mbit * 1e6);
      print({
        quantity: 'throughput',
        link: spec,
        path: kind === 'packet-kernel' ? 'packet, kernel tbf' : kind === 'packet-user' ? 'packet, user-space' : 'TCP proxy',
        setting: `${mbit} Mbit/s`,
        measured: `${fmt(result.payloadBps / 1e6)} Mbit/s payload = ${fmt(wire / 1e6)} on the wire (${fmt(ratio * 100, 1)}%)`,
        tolerance: '±10%',
        holds: Math.abs(ratio - 1) <= 0.1,
      });
    }
  }
}

async function roundTrips(): Promise<void> {
  const paths: Array<[PathKind, string]> = [['proxy', 'TCP proxy'], ...(root ? [['packet-user', 'packet'] as [PathKind, string]] : [])];
  for (const [kind, name] of paths) {
    const base = median(await withPath(kind, 'none', (host, port) => echoRoundTrips(host, port, 30)));
    for (const [delay, jitter] of [
      [20, 0],
      [40, 5],
      [150, 10],
    ] as const) {
      const spec = `delay=${delay}ms${jitter ? `,jitter=${jitter}ms` : ''}`;
      const rtts = await withPath(kind, spec, (host, port) => echoRoundTrips(host, port, 40));
      const added = median(rtts) - base;
      print({
        quantity: 'added round trip (median of 40)',
        link: spec,
        path: name,
        setting: `${2 * delay} ms`,
        measured: `${fmt(added)} ms (path without link: ${fmt(base)} ms; min ${fmt(Math.min(...rtts) - base)}, max ${fmt(Math.max(...rtts) - base)})`,
        tolerance: `±${2 + jitter} ms (2 ms + jitter)`,
        holds: Math.abs(added - 2 * delay) <= 2 + jitter,
      });
    }
  }
}

async function losses(): Promise<void> {
  if (root) {
    for (const spec of ['loss=5%/none,delay=5ms', 'loss=ge:1%:25%/none,delay=5ms']) {
      const profile = parseLinkSpec(spec);
      const expected = lossRateOf(profile.up.loss!);
      const n = 5000;
      const { received } = await withPath('packet-user', spec, (host, port) => udpDelivery(host, port, n));
      const loss = 1 - received / n;
      // Bursts (mean 1/r packets) make losses correlated: the tolerance widens by sqrt(2/r).
      const widen = profile.up.loss!.kind === 'gilbert-elliott' ? Math.sqrt(2 / profile.up.loss!.r) : 1;
      const tolerance = binomialTolerance(expected, n) * widen;
      print({
        quantity: `UDP loss (${n} datagrams)`,
        link: spec,
        path: 'packet',
        setting: `${fmt(expected * 100)}%`,
        measured: `${fmt(loss * 100)}% (${n - received} lost)`,
        tolerance: `±${fmt(tolerance * 100)} points (4 sigma${widen > 1 ? ', widened for bursts' : ''})`,
        holds: Math.abs(loss - expected) <= tolerance,
      });
    }
  }
  // Messages through the user-space datagram engine on the real clock.
  const n = 5000;
  const profile = parseLinkSpec('loss=5%,delay=20ms,jitter=5ms');
  const link = new DatagramLink<number>(profile.up, { seed: 3 });
  const delays: number[] = [];
  const pump = new DeliveryPump<number>(link, (sentAt) => delays.push(realTimers.now() - sentAt));
  for (let i = 0; i < n; i++) {
    const now = realTimers.now();
    link.send(now, now, 1000);
    pump.poke();
    if (i % 10 === 9) await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, 200));
  const loss = 1 - delays.length / n;
  print({
    quantity: `message loss (${n} messages)`,
    link: 'loss=5%,delay=20ms,jitter=5ms',
    path: 'datagram engine',
    setting: '5.00%',
    measured: `${fmt(loss * 100)}%; one-way delay median ${fmt(median(delays))} ms (min ${fmt(Math.min(...delays))}, max ${fmt(Math.max(...delays))})`,
    tolerance: `±${fmt(binomialTolerance(0.05, n) * 100)} points (4 sigma)`,
    holds: Math.abs(loss - 0.05) <= binomialTolerance(0.05, n),
  });
}

async function bufferbloat(): Promise<void> {
  const spec = 'bw=1mbit,delay=20ms,queue=200ms';
  for (const kind of ['proxy', ...packetPaths] as PathKind[]) {
    const rtts = await withPath(kind, spec, async (host, port) => {
      const upload = bulkThroughput(host, port, 1_000_000).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 2000));
      const during = await echoRoundTrips(host, port, 15, 0, 100);
      await upload;
      return during;
    });
    const rtt = median(rtts);
    print({
      quantity: 'round trip under a bulk upload (median of 15)',
      link: spec,
      path: kind === 'packet-kernel' ? 'packet, kernel tbf' : kind === 'packet-user' ? 'packet, user-space' : 'TCP proxy',
      setting: '40 ms + up to 200 ms queue',
      measured: `${fmt(rtt)} ms`,
      tolerance: 'between 40 and 240 ms + 2 ms',
      holds: rtt >= 40 && rtt <= 242,
    });
  }
}

async function main(): Promise<void> {
  const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
  if (!root) console.error(`packet paths skipped: ${packetLinkUnavailable()}`);
  await throughput();
  await roundTrips();
  await losses();
  await bufferbloat();
  const lines = [
    provenance('pnpm bench:link-fidelity', ` (${process.platform})`),
    '',
    mdTable(
      ['quantity', 'link', 'path', 'setting', 'measured', 'tolerance', 'holds'],
      rows.map((r) => [r.quantity, `\`${r.link}\``, r.path, r.setting, r.measured, r.tolerance, r.holds ? 'yes' : '**no**']),
      7,
    ),
  ];
  console.log(lines.join('\n'));
  if (out) writeFileSync(out, `${lines.join('\n')}\n`);
  process.exitCode = rows.every((r) => r.holds) ? 0 : 1;
}

await main();
