/**
 * The run step of a model served by a KServe v2 engine (Triton, KServe, OpenVINO Model Server): the frame
 * path is the gateway's own (decode, tensor, output decoding, boxes, in the inference worker); only the
 * graph runs remotely, its tensor sent with the binary tensor data extension (kserve-client.ts). An engine
 * that does not answer (gone, timed out, failing) fails the frame as `unavailable`, with the engine's own
 * words; a request the engine refuses (a shape it does not serve) is the gateway's fault, `internal`.
 */
import type { ModelRunner } from '@sightline/shared/model';
import { ProtocolError } from '@sightline/shared/validation';
import type { RemoteEngine } from '../models/manifest.ts';
import { isEngineFailure, KserveClient } from './kserve-client.ts';

/** When an engine-unavailable frame may be sent again: about when the gateway next asks the engine. */
export const ENGINE_RETRY_AFTER_MS = 1000;

export function remoteRunner(engine: RemoteEngine, timeoutMs: number): ModelRunner {
  const client = new KserveClient({ url: engine.url, timeoutMs });
  const run = client.runner(engine.model);
  return async (inputs) => {
    try {
      return await run(inputs);
    } catch (error) {
      if (!isEngineFailure(error)) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new ProtocolError('unavailable', `the inference engine did not answer: ${reason}`, undefined, ENGINE_RETRY_AFTER_MS);
    }
  };
}
