/**
 * `pnpm bench:slow-reader`: one client that never reads its answers while it keeps sending (pings, or
 * frames with --variant frames), beside three ordinary stop-and-wait clients. Reports whether and when
 * the gateway closed the slow client (and with what code: the client resumes reading once the gateway has
 * let go of it, to find the close frame), the gateway's memory before, at its peak and after, and the
 * ordinary clients' latency and longest wait for an answer during the episode. Bounded: the episode ends
 * after --episode seconds whatever happens.
 */
import { Command } from 'commander';
import { WireClient } from '@sightline/harness/client';
import { METRICS_PATH } from '@sightline/shared/protocol';
import { summarize } from '@sightline/shared/stats';
import { WsConnection } from '../client/transports/ws-connection.ts';
import type { FrameInput } from '../client/types.ts';
import { maxGap } from './load-stats.ts';
import { mb } from './process-stats.ts';
import { startRssSampler } from './rss-sampler.ts';
import { cameraFrame } from './scenario-frames.ts';
import { num, targetFrom, withTargetOptions, type TargetOptions } from './scenario-options.ts';
import { figuresSection, fmt, publishSection } from '../report.ts';

const program = withTargetOptions(
  new Command('bench:slow-reader')
    .description('A client that sends but never reads, beside ordinary clients: is it cut off, and what does it cost the others?')
    .option('--variant <kind>', 'what the slow client sends: pings or frames', 'pings')
    .option('--rate <n>', 'messages per second the slow client sends (default 5000 pings, 60 frames)')
    .option('--clients <n>', 'ordinary stop-and-wait clients', '3')
    .option('--baseline <s>', 'seconds of ordinary traffic before the slow client', '5')
    .option('--episode <s>', 'longest the slow client runs (it stops earlier once the gateway closes it)', '60')
    .option('--recovery <s>', 'seconds of ordinary traffic after it', '10'),
);
program.parse();
const o = program.opts<
  TargetOptions & { variant: string; rate?: string; clients: string; baseline: string; episode: string; recovery: string }
>();
if (o.variant !== 'pings' && o.variant !== 'frames') throw new Error('--variant is pings or frames');
const rate = num(o.rate ?? (o.variant === 'pings' ? '5000' : '60'), 'rate', 1);
const ordinaryClients = num(o.clients, 'clients', 1);
const baselineMs = num(o.baseline, 'baseline') * 1000;
const episodeMs = num(o.episode, 'episode', 1) * 1000;
const recoveryMs = num(o.recovery, 'recovery') * 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// Whatever happens, the scenario ends.
setTimeout(
  () => {
    process.stderr.write('slow-reader: hard time limit reached\n');
    process.exit(1);
  },
  baselineMs + episodeMs + recoveryMs + 60_000,
).unref();

interface Answer {
  client: number;
  sentAt: number;
  answeredAt: number;
  latencyMs: number;
  ok: boolean;
}

/** Ordinary clients: stop-and-wait frames until told to stop. */
async function ordinary(url: string, frame: FrameInput, answers: Answer[], stop: { now: boolean }): Promise<void> {
  await Promise.all(
    Array.from({ length: ordinaryClients }, async (_, client) => {
      const connection = await WsConnection.open({ baseUrl: url, codec: 'msgpack', timeoutMs: 30_000 });
      try {
        while (!stop.now && connection.alive) {
          const sentAt = performance.now();
          const result = await connection.request(frame, sentAt);
          answers.push({ client, sentAt, answeredAt: performance.now(), latencyMs: result.latencyMs, ok: result.outcome === 'ok' });
        }
      } finally {
        await connection.close();
      }
    }),
  );
}

async function metricsText(url: string): Promise<string | undefined> {
  try {
    return await (await fetch(`${url}${METRICS_PATH}`, { signal: AbortSignal.timeout(2000) })).text();
  } catch {
    return undefined;
  }
}

async function connectionsGauge(url: string): Promise<number | undefined> {
  const match = /^sightline_websocket_connections(?:\{[^}]*\})? (\d+)/m.exec((await metricsText(url)) ?? '');
  return match ? Number(match[1]) : undefined;
}

/** Connections the gateway closed so far, by its own reason (heartbeat, slow_consumer, rate_limit, ...). */
async function closesByReason(url: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const match of ((await metricsText(url)) ?? '').matchAll(/^sightline_websocket_closes_total\{[^}]*reason="([^"]+)"[^}]*\} (\d+)/gm))
    counts.set(match[1]!, Number(match[2]));
  return counts;
}

/**
 * What the gateway says it closed for: the client may never read the close frame (the gateway cuts a peer
 * that does not complete the closing handshake, and the reset discards what the client had not read).
 */
function closeReasonsSince(before: Map<string, number>, after: Map<string, number>): string {
  const added = [...after]
    .filter(([reason, n]) => n > (before.get(reason) ?? 0))
    .map(([reason, n]) => `${reason} x${n - (before.get(reason) ?? 0)}`);
  return added.length > 0 ? added.join(', ') : 'none';
}

const target = await targetFrom(o);
const rss = startRssSampler(target.pid, 1000, 'baseline');
let exitCode = 0;
try {
  const frame = await cameraFrame();
  const answers: Answer[] = [];
  const stop = { now: false };
  process.stderr.write(`gateway ${target.label}; ${ordinaryClients} ordinary clients, baseline ${baselineMs / 1000} s...\n`);
  const traffic = ordinary(target.url, frame, answers, stop);
  await sleep(baselineMs);

  const rssBefore = rss.sample();
  // The client that stops reading: it keeps nothing, it only sends.
  const slow = await WireClient.connect(target.url, { record: false });
  await slow.waitForHello(5000); // the hello arrives while it still reads
  slow.pauseReading();
  let sent = 0;
  const stillOpen = () => slow.open && slow.endedAt === undefined;
  const gaugeWith = await connectionsGauge(target.url);
  const closesBefore = await closesByReason(target.url);
  const episodeStart = performance.now();
  rss.phase('episode');
  process.stderr.write(`slow client: ${o.variant} at ${rate}/s without reading, up to ${episodeMs / 1000} s...\n`);
  let gatewayClosedAt: number | undefined;
  const sender = setInterval(() => {
    if (!stillOpen()) return;
    const due = Math.floor(((performance.now() - episodeStart) / 1000) * rate);
    for (let n = 0; n < Math.min(due - sent, 2000) && stillOpen(); n++) {
      const id = ++sent;
      if (o.variant === 'pings') slow.send({ type: 'ping', id, ts: 1 }, 'json');
      else slow.send({ type: 'frame', id, ts: 1, image: frame.bytes }, 'msgpack');
    }
  }, 10);
  while (performance.now() - episodeStart < episodeMs && stillOpen() && gatewayClosedAt === undefined) {
    await sleep(500);
    const gauge = await connectionsGauge(target.url);
    if (gaugeWith !== undefined && gauge !== undefined && gauge < gaugeWith) gatewayClosedAt = performance.now();
  }
  clearInterval(sender);
  const episodeEnd = performance.now();
  rss.phase('recovery');
  const cutOff = gatewayClosedAt !== undefined || slow.endedAt !== undefined;
  // Reading again shows what the gateway last said: its close frame, if it sent one and it was not reset away.
  slow.resumeReading();
  await slow.until(() => slow.closeEvent !== undefined || slow.error !== undefined, 3000);
  const errorCode = slow.error && ((slow.error as NodeJS.ErrnoException).code ?? slow.error.message);
  const seen = { code: slow.closeEvent?.code, reason: slow.closeEvent?.reason ?? '', error: errorCode, sent };
  const gatewayReasons = closeReasonsSince(closesBefore, await closesByReason(target.url));
  slow.terminate();
  await sleep(recoveryMs);
  stop.now = true;
  await traffic;
  const rssAfter = rss.sample();
  rss.stop();

  const during = answers.filter((a) => a.sentAt >= episodeStart && a.sentAt < episodeEnd);
  const base = answers.filter((a) => a.answeredAt < episodeStart);
  const stalls = Array.from({ length: ordinaryClients }, (_, c) =>
    maxGap(
      answers.filter((a) => a.client === c && a.answeredAt >= episodeStart && a.answeredAt <= episodeEnd).map((a) => a.answeredAt),
      episodeStart,
      episodeEnd,
    ),
  );
  const duringLatency = summarize(during.filter((a) => a.ok).map((a) => a.latencyMs));
  const baseLatency = summarize(base.filter((a) => a.ok).map((a) => a.latencyMs));
  const closedAfterMs = cutOff ? (gatewayClosedAt ?? slow.endedAt ?? episodeEnd) - episodeStart : undefined;
  const figures = {
    gateway: target.label,
    variant: o.variant,
    rate,
    slowSent: seen.sent,
    closedAfterMs,
    closeCode: seen.code,
    closeReason: seen.reason,
    clientError: seen.error,
    gatewayReasons,
    rssKb: { before: rssBefore, peak: rss.peakKb('episode'), after: rssAfter },
    ordinary: {
      baseline: { p50: baseLatency.p50, p99: baseLatency.p99 },
      episode: { p50: duringLatency.p50, p99: duringLatency.p99, answers: during.length, failures: during.filter((a) => !a.ok).length },
      maxStallMs: Math.max(...stalls),
    },
    episodeMs: episodeEnd - episodeStart,
  };
  const closeText =
    closedAfterMs === undefined
      ? `not closed within ${fmt(figures.episodeMs / 1000, 0)} s (episode over)`
      : `closed after ${fmt(closedAfterMs / 1000, 1)} s: ${seen.code !== undefined ? `code ${seen.code}${seen.reason ? ` "${seen.reason}"` : ''}` : 'no close frame reached the client'}${seen.error ? ` (client socket: ${seen.error})` : ''}`;
  const rows = [
    ['slow client', `${o.variant} at ${rate}/s, never reading; ${seen.sent.toLocaleString('en-US')} sent`],
    ['gateway closed it', closeText],
    ["the gateway's reason (its sightline_websocket_closes_total)", gatewayReasons],
    ['gateway RSS before / peak / after', `${mb(figures.rssKb.before)} / ${mb(figures.rssKb.peak)} / ${mb(figures.rssKb.after)}`],
    ['ordinary clients before, latency p50 / p99 (ms)', `${fmt(baseLatency.p50, 0)} / ${fmt(baseLatency.p99, 0)}`],
    [
      'ordinary clients during, latency p50 / p99 (ms)',
      `${fmt(duringLatency.p50, 0)} / ${fmt(duringLatency.p99, 0)} (${during.length} answers)`,
    ],
    ['ordinary clients, longest wait for an answer during (ms)', fmt(figures.ordinary.maxStallMs, 0)],
  ];
  if (o.json) console.log(JSON.stringify(figures));
  else console.log(rows.map(([k, v]) => `${k}: ${v}`).join('\n'));
  if (o.write) {
    const command = `pnpm bench:slow-reader --variant ${o.variant} --rate ${rate} --episode ${episodeMs / 1000} --write`;
    publishSection(`slow-reader-${o.variant}`, figuresSection(`Slow reader (${o.variant})`, command, target.label, rows));
  }
} catch (error) {
  exitCode = 1;
  process.stderr.write(`slow-reader failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
} finally {
  rss.stop();
  await target.owned?.stop();
}
process.exit(exitCode);
