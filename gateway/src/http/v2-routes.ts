/**
 * The gateway speaks the Open Inference Protocol (KServe v2) too, so a stock client (tritonclient) can use
 * Sightline as it would use Triton: model metadata and readiness, and `POST /v2/models/{name}/infer` taking
 * the encoded image as a BYTES input named `image` (one element; with the binary tensor data extension its
 * raw bytes, in plain JSON a Base64 string, since JSON strings cannot hold a JPEG) and answering `boxes`
 * (FP32 [n,4], pixels x1,y1,x2,y2 of the submitted image), `scores` (FP32 [n]), `classes` (INT32 [n]) and
 * `labels` (BYTES [n]), binary when asked for (`binary_data_output`, or per output), JSON otherwise. A frame
 * goes through the same admission, fair scheduler and detector as POST /api/detect, behind the same token.
 * Errors are the protocol's `{"error": "..."}` with the status /api/detect would give (Retry-After too).
 * The health endpoints (/v2/health/live, /v2/health/ready) are in probes.ts, open like /livez and /readyz.
 */
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { ProtocolError } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import { observeStages, type Metrics } from '../metrics.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import type { EngineMonitor } from '../engines/engine-monitor.ts';
import {
  decodeTensorMessage,
  encodableTensor,
  INFERENCE_HEADER_CONTENT_LENGTH,
  tensorSchema,
  type KserveTensor,
} from '../engines/kserve-client.ts';
import { reserveBody, type ReceiveBudget } from '../scheduling/receive-budget.ts';
import { detectOnce, type DetectOnceDeps } from './detect-once.ts';
import { sendV2Error } from './error-response.ts';

export const V2_IMAGE_INPUT = 'image';
const OUTPUTS = ['boxes', 'scores', 'classes', 'labels'] as const;
type OutputName = (typeof OUTPUTS)[number];

const inferRequestSchema = z.object({
  id: z.string().optional(),
  inputs: z.array(tensorSchema),
  outputs: z
    .array(z.object({ name: z.string(), parameters: z.object({ binary_data: z.boolean().optional() }).passthrough().optional() }))
    .optional(),
  parameters: z
    .object({ binary_data_output: z.boolean().optional(), threshold: z.number().min(0).max(1).optional() })
    .passthrough()
    .optional(),
});

export interface V2Deps extends DetectOnceDeps {
  registry: ModelRegistry;
  engines: EngineMonitor;
  maxMessageBytes: number;
  receiveBudget: ReceiveBudget;
  logger: Logger;
  metrics: Metrics;
}

/** The image element of a decoded request: raw bytes (binary extension) or Base64 text (JSON). */
function imageOf(tensors: readonly KserveTensor[], binary: boolean): Uint8Array {
  const input = tensors.find((t) => t.name === V2_IMAGE_INPUT);
  if (!input) throw new ProtocolError('bad_message', `no input named "${V2_IMAGE_INPUT}" (BYTES, one element: the encoded image)`);
  if (input.datatype !== 'BYTES' || !Array.isArray(input.data))
    throw new ProtocolError('bad_message', `input "${V2_IMAGE_INPUT}" must be BYTES`);
  const elements = input.data as readonly Uint8Array[];
  if (elements.length !== 1)
    throw new ProtocolError('bad_message', `input "${V2_IMAGE_INPUT}" holds ${elements.length} elements; send one image`);
  if (binary) return elements[0]!;
  const text = Buffer.from(elements[0]!).toString('latin1');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64').replace(/=+$/, '') !== text.replace(/=+$/, ''))
    throw new ProtocolError('bad_message', `input "${V2_IMAGE_INPUT}" in JSON must be the image as Base64 text`);
  return bytes;
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

/**
 * The infer response: each output asked for, in order, binary (its size in the header, its bytes after the
 * JSON in the same order) or JSON (its values in the header). Undefined headerLength: all JSON.
 */
function inferResponse(
  fields: Record<string, unknown>,
  outputs: readonly { tensor: KserveTensor; binary: boolean }[],
): { body: Buffer; headerLength?: number } {
  const chunks: Uint8Array[] = [];
  const header = {
    ...fields,
    outputs: outputs.map(({ tensor, binary }) => {
      if (!binary) return jsonTensor(tensor);
      const bytes = Buffer.concat(encodableTensor(tensor).chunks);
      chunks.push(bytes);
      return { name: tensor.name, datatype: tensor.datatype, shape: tensor.shape, parameters: { binary_data_size: bytes.byteLength } };
    }),
  };
  const json = Buffer.from(JSON.stringify(header));
  if (chunks.length === 0) return { body: json };
  return { body: Buffer.concat([json, ...chunks]), headerLength: json.byteLength };
}

function jsonTensor(tensor: KserveTensor): Record<string, unknown> {
  const data = Array.isArray(tensor.data)
    ? (tensor.data as readonly Uint8Array[]).map((bytes) => new TextDecoder().decode(bytes))
    : Array.from(tensor.data as Float32Array | Int32Array);
  return { name: tensor.name, datatype: tensor.datatype, shape: tensor.shape, data };
}

export function v2Router(deps: V2Deps): Router {
  const router = express.Router();

  router.get('/v2', (_request, response) => {
    response.json({ name: 'sightline', version: '2', extensions: ['binary_tensor_data'] });
  });

  router.get('/v2/models/:name', (request: Request<{ name: string }>, response) => {
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
      });
    } catch (error) {
      sendV2Error(response, error, { logger: deps.logger, context: 'v2 model metadata' });
    }
  });

  router.get('/v2/models/:name/ready', (request: Request<{ name: string }>, response) => {
    try {
      deps.registry.resolve(request.params.name);
      deps.engines.check(request.params.name);
      response.status(200).end();
    } catch (error) {
      sendV2Error(response, error, { logger: deps.logger, context: 'v2 model readiness' });
    }
  });

  router.post(
    '/v2/models/:name/infer',
    reserveBody(deps.receiveBudget, deps.maxMessageBytes),
    express.raw({ type: () => true, limit: deps.maxMessageBytes }),
    async (request: Request<{ name: string }>, response: Response) => {
      const receivedAt = performance.now();
      try {
        deps.registry.resolve(request.params.name);
        const body: unknown = request.body;
        if (!(body instanceof Buffer) || body.length === 0) throw new ProtocolError('bad_message', 'empty body; send an infer request');
        const lengthHeader = request.get(INFERENCE_HEADER_CONTENT_LENGTH);
        const headerLength = lengthHeader === undefined ? undefined : Number(lengthHeader);
        let decoded;
        try {
          decoded = decodeTensorMessage(
            new Uint8Array(body.buffer, body.byteOffset, body.byteLength),
            headerLength,
            inferRequestSchema,
            'inputs',
          );
        } catch (error) {
          throw new ProtocolError('bad_message', error instanceof Error ? error.message : String(error));
        }
        const { header, tensors } = decoded;
        const binaryIn = header.inputs.find((i) => i.name === V2_IMAGE_INPUT)?.parameters?.binary_data_size !== undefined;
        const image = imageOf(tensors, binaryIn);
        const threshold = header.parameters?.threshold;
        const { reply, result } = await detectOnce(
          deps,
          { image, model: request.params.name, ...(threshold === undefined ? {} : { threshold }) },
          receivedAt,
        );
        const all = outputTensors(reply);
        const binaryDefault = header.parameters?.binary_data_output ?? false;
        const asked: { name: string; parameters?: { binary_data?: boolean } }[] = header.outputs ?? OUTPUTS.map((name) => ({ name }));
        const unknown = asked.find((o) => !(OUTPUTS as readonly string[]).includes(o.name));
        if (unknown) throw new ProtocolError('bad_message', `no output named "${unknown.name}"; outputs: ${OUTPUTS.join(', ')}`);
        const answer = inferResponse(
          { model_name: reply.model, model_version: '1', ...(header.id === undefined ? {} : { id: header.id }) },
          asked.map((o) => ({ tensor: all[o.name as OutputName], binary: o.parameters?.binary_data ?? binaryDefault })),
        );
        if (answer.headerLength === undefined) response.type('application/json');
        else {
          response.setHeader(INFERENCE_HEADER_CONTENT_LENGTH, String(answer.headerLength));
          response.type('application/octet-stream');
        }
        response.send(answer.body);
        deps.metrics.frames.inc({ transport: 'v2', codec: binaryIn ? 'binary' : 'json', outcome: 'detections' });
        observeStages(deps.metrics, reply.model, reply.timings, result);
      } catch (error) {
        const code = sendV2Error(response, error, { logger: deps.logger, context: 'v2 infer' });
        deps.metrics.frames.inc({ transport: 'v2', codec: 'binary', outcome: code });
      }
    },
  );

  return router;
}
