/**
 * WebSocket, short connections: every frame opens its own WebSocket, sends one frame, waits for the answer
 * and closes. Latency includes the TCP connect and the upgrade; the close handshake is not counted in the
 * frame's latency but is awaited before the client's next frame (one connection per client at a time).
 */
import type { ClientDriver, Recorder, Workload } from '../types.ts';
import { WsConnection, type WsConnectionOptions } from './ws-connection.ts';

export class WsShortDriver implements ClientDriver {
  private lost = false;

  constructor(private readonly options: WsConnectionOptions) {}

  get alive(): boolean {
    return !this.lost;
  }

  async open(): Promise<void> {}

  async run(work: Workload, recorder: Recorder): Promise<void> {
    for (let item = work.next(); item; item = work.next()) {
      const startedAt = performance.now();
      let connection: WsConnection;
      try {
        connection = await WsConnection.open(this.options);
      } catch (error) {
        recorder.frame(item, startedAt, {
          outcome: 'failed',
          latencyMs: Number.NaN,
          bytesUp: 0,
          bytesDown: 0,
          errorCode: 'connect_failed',
          errorMessage: error instanceof Error ? error.message : String(error),
        });
        this.lost = true;
        return;
      }
      recorder.net('handshake', connection.handshakeMs);
      const result = await connection.request(item.input, startedAt);
      // The hello has arrived by the time the answer has (the gateway sends it first).
      recorder.connection?.(connection.hello?.instance);
      // The whole exchange as it crossed the wire: upgrade request and response, hello, frame and answer.
      const bytes = connection.socketBytes;
      recorder.frame(item, startedAt, {
        ...result,
        connectMs: connection.connectMs,
        handshakeMs: connection.handshakeMs,
        bytesUp: result.outcome === 'ok' || result.outcome === 'dropped' || result.outcome === 'error' ? bytes.written : result.bytesUp,
        bytesDown: result.outcome === 'ok' || result.outcome === 'dropped' || result.outcome === 'error' ? bytes.read : result.bytesDown,
      });
      await connection.close();
    }
  }

  async close(): Promise<void> {}
}
