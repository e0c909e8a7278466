/**
 * Scale-out, for real: three gateway processes (one inference thread each) behind Debian's HAProxy
 * running the shipped deploy/compose/haproxy/haproxy.cfg, thirty streaming WebSocket clients through it.
 *
 * 1. The clients spread over the three replicas (least connections), as each hello names its replica.
 * 2. One replica gets SIGTERM under load: every frame it read is answered (detections, or dropped
 *    shutting_down), its clients are closed with 1001 and it exits 0; they reconnect through HAProxy to
 *    the others and keep streaming; HAProxy takes it out of rotation.
 * 3. One replica is killed (SIGKILL): HAProxy marks it down, its clients reconnect to the last one.
 * 4. No frame is lost on a connection that stayed up.
 *
 * Prints the figures: frames answered, reconnect time p50 / max, time until HAProxy marks a replica down.
 * Nothing here asserts a duration: on a busy two-core machine only generous deadlines are safe.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, GatewayProcess } from '@sightline/harness/process';
import { readPhoto } from '@sightline/shared/fixtures';
import { CLOSE_CODES } from '@sightline/shared/protocol';
import { percentile } from '@sightline/shared/stats';
import { HaproxyProcess } from './support/haproxy.ts';
import { StreamClient, tally, type Session } from './support/stream-client.ts';

const REPLICAS = ['gw-a', 'gw-b', 'gw-c'] as const;
const CLIENTS = 30;
/**
 * Two frames in flight per client, the next one 400 ms after an answer: ~150 frames per second in all,
 * more than three one-thread replicas on two cores detect, so frames queue (and some are shed) when the
 * signals come.
 */
const WINDOW = 2;
const THINK_MS = 400;
/** Streaming before each event, so it lands under load. */
const STEADY_MS = 2000;
/** A reconnected client has to show it streams again: this many answers on its new connection. */
const ANSWERS_AFTER_RECONNECT = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(predicate: () => boolean, what: string, timeoutMs = 60_000): Promise<number> {
  const started = performance.now();
  while (!predicate()) {
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
  return performance.now() - started;
}

const countBy = <T>(items: T[], key: (item: T) => string) =>
  items.reduce<Record<string, number>>((counts, item) => ({ ...counts, [key(item)]: (counts[key(item)] ?? 0) + 1 }), {});
const ms = (value: number) => `${Math.round(value)} ms`;

describe('scale-out behind HAProxy', () => {
  const gateways = new Map<string, GatewayProcess>();
  let haproxy: HaproxyProcess | undefined;
  const clients: StreamClient[] = [];
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sightline-scale-out-'));
    await Promise.all(
      REPLICAS.map(async (name) => {
        const gateway = await GatewayProcess.start({
          name,
          env: {
            SIGHTLINE_INSTANCE: name,
            SIGHTLINE_THREADS: '1',
            SIGHTLINE_WORKERS: '1',
            // HAProxy's X-Forwarded-For names the client (`option forwardfor`), as in the compose setup.
            SIGHTLINE_TRUST_PROXY: 'loopback',
            // The drain is logged at info.
            LOG_LEVEL: 'info',
          },
        });
        gateways.set(name, gateway);
      }),
    );
    haproxy = await HaproxyProcess.start({
      dir,
      port: await freePort(),
      statsPort: await freePort(),
      servers: REPLICAS.map((name) => ({ name, port: gateways.get(name)!.port })),
    });
    await haproxy.waitFor((servers) => servers.length === REPLICAS.length && servers.every((s) => s.status === 'UP'), 'every replica UP');
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.stop(5000)));
    await haproxy?.stop();
    await Promise.all([...gateways.values()].map((gateway) => gateway.stop('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  });

  it('spreads clients, drains a replica on SIGTERM, survives one killed, loses no frame on the others', async () => {
    const url = `ws://127.0.0.1:${haproxy!.port}`;
    const image = readPhoto('dog.jpg');
    const current = () => clients.map((client) => client.session!);
    const perReplica = () => countBy(current(), (session) => session.instance);

    // 1. Thirty clients, one after the other: least connections gives each replica its share.
    for (let i = 0; i < CLIENTS; i++) {
      const client = new StreamClient(i, url, image, { thinkMs: THINK_MS, window: WINDOW });
      clients.push(client);
      await client.start();
    }
    const spread = perReplica();
    console.log(`clients per replica: ${JSON.stringify(spread)}`);
    expect(Object.keys(spread).sort()).toEqual([...REPLICAS]);
    const counts = Object.values(spread);
    expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(2);
    await until(() => current().every((s) => s.answers.size >= 2), 'every client streaming');
    await sleep(STEADY_MS);

    // 2. SIGTERM on gw-a under load.
    const drained = gateways.get('gw-a')!;
    const drainedSessions = current().filter((s) => s.instance === 'gw-a');
    const exited = once(drained.child!, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    const exitedAt = exited.then(() => performance.now());
    const termAt = performance.now();
    drained.child!.kill('SIGTERM');
    const [downAfterTermMs, drainedReconnectMs] = await Promise.all([
      haproxy!.waitFor((servers) => servers.find((s) => s.name === 'gw-a')!.status.startsWith('DOWN'), 'gw-a DOWN'),
      until(
        () =>
          drainedSessions.every((s) => s.closedAt !== undefined) &&
          current().every((s) => s.instance !== 'gw-a' && s.answers.size >= ANSWERS_AFTER_RECONNECT),
        "the drained replica's clients streaming elsewhere",
      ),
    ]);
    const [code, signal] = await exited;
    const exitMs = (await exitedAt) - termAt;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(drained.output()).toMatch(/"msg":"drained; exiting"/);
    const afterDrain = perReplica();
    console.log(`after SIGTERM on gw-a: clients per replica ${JSON.stringify(afterDrain)}`);
    expect(Object.keys(afterDrain).sort()).toEqual(['gw-b', 'gw-c']);
    await sleep(STEADY_MS);

    // 3. SIGKILL on gw-b.
    const killed = gateways.get('gw-b')!;
    const killedSessions = current().filter((s) => s.instance === 'gw-b');
    killed.child!.kill('SIGKILL');
    // Both at once: the clients do not wait for HAProxy's verdict (their reconnects are redispatched).
    const [downAfterKillMs, killedReconnectMs] = await Promise.all([
      haproxy!.waitFor((servers) => servers.find((s) => s.name === 'gw-b')!.status.startsWith('DOWN'), 'gw-b DOWN'),
      until(
        () =>
          killedSessions.every((s) => s.closedAt !== undefined) &&
          current().every((s) => s.instance === 'gw-c' && s.answers.size >= ANSWERS_AFTER_RECONNECT),
        "the killed replica's clients streaming on gw-c",
      ),
    ]);
    console.log(`after SIGKILL on gw-b: clients per replica ${JSON.stringify(perReplica())}`);

    // 4. Stop streaming: every client waits for its last answer.
    await Promise.all(clients.map((client) => client.stop()));
    const sessions: Session[] = clients.flatMap((client) => client.sessions);

    // The drained replica: closed 1001, every frame it read answered.
    for (const session of drainedSessions) {
      expect(session.closeCode, `client ${session.client}`).toBe(CLOSE_CODES.goingAway);
      expect(tally(session).unansweredRead, `client ${session.client} on gw-a`).toEqual([]);
    }
    // What the frames answered after the signal got: detections for those running, shutting_down for those waiting.
    const drainedAnswers = countBy(
      drainedSessions.flatMap((s) => [...s.answers.values()].filter(({ at }) => at >= termAt)),
      ({ answer }) => answer,
    );
    const crossed = drainedSessions.reduce((sum, s) => sum + tally(s).crossedClose, 0);
    const lostInKill = killedSessions.reduce((sum, s) => sum + s.sent.filter((id) => !s.answers.has(id)).length, 0);
    // Connections that stayed up lost nothing: every frame sent was answered.
    const survivors = sessions.filter((s) => !s.closedByPeer);
    for (const session of survivors) {
      const { unansweredRead, crossedClose } = tally(session);
      expect({ client: session.client, unansweredRead, crossedClose }).toEqual({
        client: session.client,
        unansweredRead: [],
        crossedClose: 0,
      });
    }
    // Every client of a replica that went away came back on another.
    const reconnects = clients.flatMap((client) => client.reconnects);
    const reconnected = new Set(reconnects.map((r) => `${r.client}:${r.from}`));
    for (const session of [...drainedSessions, ...killedSessions])
      expect(reconnected.has(`${session.client}:${session.instance}`)).toBe(true);
    for (const r of reconnects) expect(r.to === 'gw-c' || (r.from === 'gw-a' && r.to === 'gw-b'), JSON.stringify(r)).toBe(true);

    const all = sessions.reduce(
      (sum, s) => {
        const t = tally(s);
        return { sent: sum.sent + s.sent.length, answered: sum.answered + t.answered, crossed: sum.crossed + t.crossedClose };
      },
      { sent: 0, answered: 0, crossed: 0 },
    );
    const allAnswers = countBy(
      sessions.flatMap((s) => [...s.answers.values()]),
      ({ answer }) => answer,
    );
    const reconnectMs = (from: string) => reconnects.filter((r) => r.from === from).map((r) => r.ms);
    const figures = (values: number[]) =>
      `p50 ${ms(
        percentile(
          [...values].sort((a, b) => a - b),
          50,
        ),
      )}, max ${ms(Math.max(...values))} (${values.length} clients)`;
    console.log(
      [
        'scale-out figures (3 gateways x 1 inference thread behind HAProxy, 30 clients):',
        `  frames: ${all.sent} sent, ${all.answered} answered ${JSON.stringify(allAnswers)}; unanswered: ${crossed} that crossed the drained replica's close (never read), ${lostInKill} in flight on the killed replica`,
        `  SIGTERM gw-a: ${drainedSessions.length} clients closed 1001, frames answered after the signal ${JSON.stringify(drainedAnswers)}, ${crossed} crossed the close; exit 0 after ${ms(exitMs)}; HAProxy marked it DOWN after ${ms(downAfterTermMs)}; all streaming elsewhere ${ms(drainedReconnectMs)} after the signal`,
        `  reconnect after the drain: ${figures(reconnectMs('gw-a'))}`,
        `  SIGKILL gw-b: ${killedSessions.length} clients cut (close ${JSON.stringify(countBy(killedSessions, (s) => String(s.closeCode)))}); ${lostInKill} frames in flight lost; HAProxy marked it DOWN after ${ms(downAfterKillMs)}; all streaming on gw-c ${ms(killedReconnectMs)} after the kill`,
        `  reconnect after the kill: ${figures(reconnectMs('gw-b'))}`,
        `  connections that stayed up: ${survivors.length}, frames lost on them: 0`,
      ].join('\n'),
    );
  });
});
