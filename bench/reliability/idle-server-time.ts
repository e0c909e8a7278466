/**
 * The yardstick the load figures are divided by: how long the gateway takes for one frame when it has
 * nothing else to do (p50 of serverMs over stop-and-wait frames on one connection).
 */
import { summarize, type Summary } from '@sightline/shared/stats';
import { WsConnection } from '../client/transports/ws-connection.ts';
import type { FrameInput } from '../client/types.ts';

export interface IdleTiming {
  frames: number;
  serverMs: Summary;
  /** Client-side round trip of the same frames. */
  latencyMs: Summary;
}

export async function measureIdleServerTime(url: string, input: FrameInput, frames = 50, warmup = 5): Promise<IdleTiming> {
  const connection = await WsConnection.open({ baseUrl: url, codec: 'msgpack', timeoutMs: 30_000 });
  const server: number[] = [];
  const latency: number[] = [];
  try {
    for (let i = 0; i < warmup + frames; i++) {
      const result = await connection.request(input);
      if (result.outcome !== 'ok') throw new Error(`idle frame answered ${result.outcome} ${result.errorCode ?? ''}`);
      if (i < warmup) continue;
      server.push(result.serverMs!);
      latency.push(result.latencyMs);
    }
  } finally {
    await connection.close();
  }
  return { frames, serverMs: summarize(server), latencyMs: summarize(latency) };
}
