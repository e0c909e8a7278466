/** WebSocket, serial: one persistent connection per client, one frame in flight, the next sent on the answer. */
import type { ClientDriver, Recorder, Workload } from '../types.ts';
import { WsConnection, type WsConnectionOptions } from './ws-connection.ts';

/** Sends frames one after the other on `connection` until the workload ends or the connection is lost. */
export async function serialLoop(connection: WsConnection, work: Workload, recorder: Recorder): Promise<void> {
  for (let item = work.next(); item; item = work.next()) {
    await connection.whenSendAllowed();
    const startedAt = performance.now();
    const result = await connection.request(item.input, startedAt);
    recorder.frame(item, startedAt, result);
    if (!connection.alive) return;
  }
}

export class WsPersistentDriver implements ClientDriver {
  protected connection: WsConnection | undefined;

  constructor(protected readonly options: WsConnectionOptions) {}

  get alive(): boolean {
    return this.connection?.alive ?? false;
  }

  get keyframeWanted(): boolean {
    return this.connection?.keyframeWanted ?? false;
  }

  get closeReason(): string | undefined {
    return this.connection?.closeReason;
  }

  get hello() {
    return this.connection?.hello;
  }

  async open(recorder: Recorder): Promise<void> {
    this.connection = await WsConnection.open(this.options);
    recorder.net('connect', this.connection.connectMs);
    recorder.net('handshake', this.connection.handshakeMs);
    const hello = await this.connection.waitForHello();
    recorder.connection?.(hello?.instance);
  }

  async probe(recorder: Recorder): Promise<void> {
    const rtt = await this.connection?.ping();
    if (rtt !== undefined) recorder.net('ping', rtt);
  }

  run(work: Workload, recorder: Recorder): Promise<void> {
    return serialLoop(this.connection!, work, recorder);
  }

  async close(): Promise<void> {
    await this.connection?.close();
  }
}
