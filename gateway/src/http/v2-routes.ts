/**
 * The gateway speaks the Open Inference Protocol (KServe v2) too, so a stock client (tritonclient) can use
 * Sightline as it would use Triton: model metadata and readiness, and `POST /v2/models/{name}/infer` taking
 * the encoded image as a BYTES input named `image` (one element; with the binary tensor data extension its
 * raw bytes, in plain JSON a Base64 string, since JSON strings cannot hold a JPEG) and answering `boxes`
 * (FP32 [n,4], pixels x1,y1,x2,y2 of the submitted image), `scores` (FP32 [n]), `classes` (INT32 [n]) and
 * `labels` (BYTES [n]), binary when asked for (`binary_data_output`, or per output), JSON otherwise. A frame
 * goes through the same admission, fair scheduler and detector as POST /api/detect, behind the same token.
 * The messages are the KServe codec's (engines/kserve-codec.ts, the one the gateway's own client uses), the
 * Base64 check the one /api/detect applies to JSON images (canonical, padded). Errors are the protocol's
 * `{"error": "..."}` with the status /api/detect would give (Retry-After too), sent by frames/http-answers.ts.
 * The health endpoints (/v2/health/live, /v2/health/ready) are in probes.ts, open like /livez and /readyz.
 */
import express, { type Request, type Response, type Router } from 'express';
import { base64ToBytes } from '@sightline/shared/base64';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { scoreThreshold } from '@sightline/shared/schemas';
import { ProtocolError } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import type { EngineMonitor } from '../engines/engine-monitor.ts';
import {
  decodeInferRequest,
  encodeInferResponse,
  INFERENCE_HEADER_CONTENT_LENGTH,
  messageHeaders,
  readHeaderLength,
  type InferRequest,
  type MessageTensor,
  type ModelMetadata,
  type RequestedOutput,
} from '../engines/kserve-codec.ts';
import { KserveError } from '../engines/kserve-error.ts';
import { isByteStrings, type KserveTensor } from '../engines/kserve-tensors.ts';
import { reserveBody, type ReceiveBudget } from '../scheduling/receive-budget.ts';
import { detectOnce, type DetectOnceDeps } from './detect-once.ts';
import { sendV2Error } from '../frames/http-answers.ts';

export const V2_IMAGE_INPUT = 'image';
const OUTPUTS = ['boxes', 'scores', 'classes', 'labels'] as const;
type OutputName = (typeof OUTPUTS)[number];

export interface V2Deps extends DetectOnceDeps {
  registry: ModelRegistry;
  engines: EngineMonitor;
  maxMessageBytes: number;
  receiveBudget: ReceiveBudget;
  logger: Logger;
  metrics: Metrics;
}

/** The request as the codec reads it; what does not decode is the client's `bad_message`. */
function decodeRequest(body: unknown, headerLength: string | undefined): InferRequest {
  if (!(body instanceof Buffer) || body.length === 0) throw new ProtocolError('bad_message', 'empty body; send an infer request');
  try {
    return decodeInferRequest(new Uint8Array(body.buffer, body.byteOffset, body.byteLength), readHeaderLength(headerLength));
  } catch (error) {
    if (error instanceof KserveError) throw new ProtocolError('bad_message', error.message);
    throw error;
  }
}

/** The image element of a decoded request: raw bytes (binary extension) or Base64 text (JSON). */
function imageOf(input: MessageTensor | undefined): Uint8Array {
  if (!input) throw new ProtocolError('bad_message', `no input named "${V2_IMAGE_INPUT}" (BYTES, one element: the encoded image)`);
  if (input.datatype !== 'BYTES' || !isByteStrings(input.data))
    throw new ProtocolError('bad_message', `input "${V2_IMAGE_INPUT}" must be BYTES`);
  if (input.data.length !== 1)
    throw new ProtocolError('bad_message', `input "${V2_IMAGE_INPUT}" holds ${input.data.length} elements; send one image`);
  const element = input.data[0]!;
  if (input.binary) return element;
  const image = base64ToBytes(new TextDecoder().decode(element));
  if (!image) throw new ProtocolError('bad_message', `input "${V2_IMAGE_INPUT}" in JSON must be the image as Base64 text`);
  return image;
}

/** `parameters.threshold`: the score threshold, as /api/detect's `threshold`. */
function thresholdOf(parameters: Record<string, unknown>): number | undefined {
  const parsed = scoreThreshold.optional().safeParse(parameters.threshold);
  if (!parsed.success) throw new ProtocolError('bad_message', 'parameters.threshold must be a number from 0 to 1');
  return parsed.data;
}

/** The outputs asked for, each known, before the frame is run: every output unless some are named. */
function outputsAsked(request: InferRequest): (RequestedOutput & { name: OutputName })[] {
  const asked = request.outputs ?? OUTPUTS.map((name) => ({ name, binary: request.binaryOutputs }));
  return asked.map((output) => {
    if (!(OUTPUTS as readonly string[]).includes(output.name))
      throw new ProtocolError('bad_message', `no output named "${output.name}"; outputs: ${OUTPUTS.join(', ')}`);
    return output as RequestedOutput & { name: OutputName };
  });
}

function outputTensors(reply: DetectionsMessage): Record<OutputName, KserveTensor> {
  const n = reply.detections.length;
  const labels = new TextEncoder();
  return {
    boxes: { name: 'boxes', datatype: 'FP32', shape: [n, 4], data: Float32Array.from(reply.detections.flatMap((d) => d.box)) },
    scores: { name: 'scores', datatype: 'FP32', shape: [n], data: Float32Array.from(reply.detections, (d) => d.score) },
    classes: { name: 'classes', datatype: 'INT32', shape: [n], data: Int32Array.from(reply.detections, (d) => d.classId) },
    labels: { name: 'labels', datatype: 'BYTES', shape: [n], data: reply.detections.map((d) => labels.encode(d.label)) },
  };
}

export function v2Router(deps: V2Deps): Router {
  const router = express.Router();

  router.get('/', (_request, response) => {
    response.json({ name: 'sightline', version: '2', extensions: ['binary_tensor_data'] });
  });

  router.get('/models/:name', (request: Request<{ name: string }>, response) => {
    try {
      const spec = deps.registry.resolve(request.params.name);
      response.json({
        name: spec.manifest.name,
        versions: ['1'],
        platform: 'sightline',
        inputs: [{ name: V2_IMAGE_INPUT, datatype: 'BYTES', shape: [1] }],
        outputs: [
          { name: 'boxes', datatype: 'FP32', shape: [-1, 4] },
          { name: 'scores', datatype: 'FP32', shape: [-1] },
          { name: 'classes', datatype: 'INT32', shape: [-1] },
          { name: 'labels', datatype: 'BYTES', shape: [-1] },
        ],
      } satisfies ModelMetadata);
    } catch (error) {
      sendV2Error(response, error, { logger: deps.logger, context: 'v2 model metadata' });
    }
  });

  router.get('/models/:name/ready', (request: Request<{ name: string }>, response) => {
    try {
      deps.registry.resolve(request.params.name);
      deps.engines.check(request.params.name);
      response.status(200).end();
    } catch (error) {
      sendV2Error(response, error, { logger: deps.logger, context: 'v2 model readiness' });
    }
  });

  router.post(
    '/models/:name/infer',
    reserveBody(deps.receiveBudget, deps.maxMessageBytes),
    express.raw({ type: () => true, limit: deps.maxMessageBytes }),
    async (request: Request<{ name: string }>, response: Response) => {
      const receivedAt = performance.now();
      try {
        deps.registry.resolve(request.params.name);
        const decoded = decodeRequest(request.body, request.get(INFERENCE_HEADER_CONTENT_LENGTH));
        const imageInput = decoded.inputs.find((input) => input.name === V2_IMAGE_INPUT);
        const image = imageOf(imageInput);
        const threshold = thresholdOf(decoded.parameters);
        const asked = outputsAsked(decoded);
        const { reply, result } = await detectOnce(
          deps,
          { image, model: request.params.name, ...(threshold === undefined ? {} : { threshold }) },
          receivedAt,
        );
        const all = outputTensors(reply);
        const answer = encodeInferResponse({
          modelName: reply.model,
          modelVersion: '1',
          id: decoded.id,
          outputs: asked.map(({ name, binary }) => ({ ...all[name], binary })),
        });
        response.set(messageHeaders(answer)).send(Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength));
        deps.metrics.frames.inc({ transport: 'v2', codec: imageInput?.binary ? 'binary' : 'json', outcome: 'detections' });
        observeStages(deps.metrics, reply.model, reply.timings, result);
      } catch (error) {
        const code = sendV2Error(response, error, { logger: deps.logger, context: 'v2 infer' });
        deps.metrics.frames.inc({ transport: 'v2', codec: 'binary', outcome: code });
      }
    },
  );

  return router;
}
