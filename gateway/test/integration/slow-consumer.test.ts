/**
 * Clients that stop reading their socket, against a real gateway process (so its memory can be read on
 * its own): closed with the documented code and reason, memory back near where it was, other clients
 * served throughout.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { encodeMessage } from '@sightline/shared/codec';
import { CLOSE_CODES } from '@sightline/shared/protocol';
import { GatewayProcess } from '@sightline/harness/process';
import { photo } from '../support/images.ts';
import { WireClient as TestClient } from '@sightline/harness/client';

const HEARTBEAT_MS = 1000;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) / 1024;
}

/** A raw client whose socket stops being read: what the gateway sends piles up on its side. */
async function stalledClient(url: string) {
  const ws = new WebSocket(url);
  await once(ws, 'open');
  const tcp = (ws as unknown as { _socket: Socket })._socket;
  tcp.pause();
  let closed: { code: number; reason: string } | undefined;
  ws.on('close', (code, reason) => (closed = { code, reason: reason.toString() }));
  ws.on('error', () => {});
  return {
    ws,
    tcp,
    /** Resumes reading: whatever reached this side, the close frame included, is read now. */
    resume: async () => {
      tcp.resume();
      const deadline = Date.now() + 5000;
      while (!closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      return closed;
    },
  };
}

describe('slow consumers', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    gateway = await GatewayProcess.start({
      env: {
        SIGHTLINE_HEARTBEAT_MS: String(HEARTBEAT_MS),
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
  });

  const closeCount = async (reason: string): Promise<number> => {
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    return Number(new RegExp(`sightline_websocket_closes_total\\{reason="${reason}"[^}]*\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
  };

  it('closes a client that stops reading with 4002 and a reason, within two heartbeats', async () => {
    const closesBefore = await closeCount('heartbeat');
    const client = await stalledClient(`ws://127.0.0.1:${gateway.port}/ws`);
    const since = performance.now();
    while ((await closeCount('heartbeat')) === closesBefore && performance.now() - since < 10_000)
      await new Promise((r) => setTimeout(r, 50));
    const elapsed = performance.now() - since;
    // The close frame reached this side before the gateway cut the connection: reading now shows it.
    const closed = await client.resume();
    expect(closed).toEqual({ code: CLOSE_CODES.slowConsumer, reason: `no answer to a ping within ${HEARTBEAT_MS / 1000} s` });
    expect(elapsed).toBeLessThan(2 * HEARTBEAT_MS + 2000);
  });

  it('closes a client flooding messages without reading with 1008 at once; memory stays put; others are served', async () => {
    const pid = gateway.pid!;
    const bystander = await TestClient.connect(`ws://127.0.0.1:${gateway.port}/ws`);
    const frame = photo('dog.jpg');
    const ping = Buffer.from(encodeMessage({ type: 'ping', id: 1, ts: 1 }, 'msgpack'));
    const rss: number[] = [rssMb(pid)];
    let bystanderId = 0;
    for (let episode = 0; episode < 3; episode++) {
      const client = await stalledClient(`ws://127.0.0.1:${gateway.port}/ws`);
      const since = performance.now();
      for (let batch = 0; batch < 20; batch++) {
        for (let i = 0; i < 500; i++) client.ws.send(ping);
        bystander.send({ type: 'frame', id: ++bystanderId, ts: 0, image: frame }, 'msgpack');
        await new Promise((r) => setTimeout(r, 10));
      }
      const closed = await client.resume();
      expect(closed?.code, `episode ${episode}`).toBe(CLOSE_CODES.policyViolation);
      expect(closed?.reason).toMatch(/message rate above 200\/s/);
      expect(performance.now() - since).toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 500));
      rss.push(rssMb(pid));
    }
    await bystander.waitFor(() => Array.from({ length: bystanderId }, (_, i) => i + 1).every((id) => bystander.answersTo(id).length === 1));
    expect(bystander.received.filter((r) => r.message.type === 'detections').length).toBeGreaterThan(0);
    expect(await closeCount('rate_limit')).toBeGreaterThanOrEqual(3);
    expect(Math.max(...rss) - rss[0]!, `RSS ${rss.map((v) => v.toFixed(0)).join(' -> ')} MB`).toBeLessThan(40);
    bystander.close();
  });
});
