/**
 * The yardsticks the overload figures are divided by, measured on the idle gateway just before the load, in the
 * same run: the server time of one frame alone (one stop-and-wait client), and the service time of a frame
 * processed beside another (issue 29, point 3: two naive stop-and-wait clients side by side, each sending its next
 * frame on any answer, hints ignored; on 2 cores two frames at once is what the machine does at full use, so "p95
 * under overload / this" says how much waiting beyond full use a detected frame carried). The figure is the p50 of
 * the detected frames' `serverMs` (from receipt to reply, inside the gateway).
 */
import { summarize, type Summary } from '@sightline/shared/stats';
import { WsConnection } from '../client/transports/ws-connection.ts';
import type { FrameInput } from '../client/types.ts';

export interface ServerTiming {
  clients: number;
  /** Detected frames measured, all clients together. */
  frames: number;
  serverMs: Summary;
  /** Client-side round trip of the same frames. */
  latencyMs: Summary;
  /** Frames not detected (refused or failed): none expected from stop-and-wait clients on an idle gateway. */
  notDetected: number;
}

export async function measureServerTime(
  url: string,
  input: FrameInput,
  { clients = 1, frames = 50, warmup = 5 }: { clients?: number; frames?: number; warmup?: number } = {},
): Promise<ServerTiming> {
  const connections = await Promise.all(
    Array.from({ length: clients }, () =>
      WsConnection.open({ baseUrl: url, codec: 'msgpack', timeoutMs: 30_000, honourRetryAfter: false }),
    ),
  );
  const server: number[] = [];
  const latency: number[] = [];
  let notDetected = 0;
  try {
    await Promise.all(
      connections.map(async (connection) => {
        for (let i = 0; i < warmup + frames; i++) {
          const result = await connection.request(input);
          if (i < warmup) continue;
          if (result.outcome !== 'ok' || result.serverMs === undefined) {
            notDetected++;
            continue;
          }
          server.push(result.serverMs);
          latency.push(result.latencyMs);
        }
      }),
    );
  } finally {
    await Promise.all(connections.map((c) => c.close()));
  }
  return { clients, frames: server.length, serverMs: summarize(server), latencyMs: summarize(latency), notDetected };
}
