/**
 * WebSocket, pipelined: K frames in flight on one connection. Each of K lanes sends its next frame as soon as
 * its previous one is answered (detections, dropped or error), so the connection always carries K frames.
 */
import type { Recorder, Workload } from '../types.ts';
import type { WsConnectionOptions } from './ws-connection.ts';
import { serialLoop, WsPersistentDriver } from './ws-serial.ts';

export class WsPipelinedDriver extends WsPersistentDriver {
  constructor(
    options: WsConnectionOptions,
    private readonly inFlight: number,
  ) {
    super(options);
  }

  override async run(work: Workload, recorder: Recorder): Promise<void> {
    const connection = this.connection!;
    await Promise.all(Array.from({ length: this.inFlight }, () => serialLoop(connection, work, recorder)));
  }
}
