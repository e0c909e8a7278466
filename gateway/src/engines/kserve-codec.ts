/**
 * The messages of the Open Inference Protocol (KServe v2) over HTTP, encoded and decoded with no I/O, for
 * every side that speaks it: the client (kserve-client.ts) encodes requests and decodes responses, the
 * gateway's own v2 endpoint (http/v2-routes.ts) decodes requests and encodes responses, and a response
 * decodes without a client.
 *
 * Both directions have one form: a JSON header naming the tensors (`inputs` or `outputs`), each tensor's
 * data either in the header (`data`, the JSON form) or after it (the binary tensor data extension: its
 * `parameters.binary_data_size`, its bytes following the JSON in the order of the tensors). The
 * `Inference-Header-Content-Length` HTTP header says where the JSON ends; absent, the body is JSON alone.
 * A request asks for its outputs binary or JSON, each (`outputs[].parameters.binary_data`) or all
 * (`parameters.binary_data_output`).
 *
 * Encoding failures are KserveError `usage`, decoding failures `protocol`, each saying which tensor.
 */
import { z } from 'zod';
import { KserveError } from './kserve-error.ts';
import {
  decodeBinaryData,
  decodeJsonData,
  encodeBinaryData,
  encodeJsonData,
  KSERVE_DATATYPES,
  type KserveTensor,
  type TensorRole,
  type TensorValues,
} from './kserve-tensors.ts';

export const INFERENCE_HEADER_CONTENT_LENGTH = 'inference-header-content-length';

/** A tensor as a message carries it: its data after the JSON header (binary) or in it (JSON). */
export interface MessageTensor extends KserveTensor {
  binary: boolean;
}

/** A tensor to encode: binary unless it says otherwise. */
export type TensorToSend = KserveTensor & { binary?: boolean };

export interface EncodedMessage {
  /** The JSON header, then the binary tensors' bytes. */
  body: Uint8Array;
  /** Byte length of the JSON header. */
  headerLength: number;
  /** Whether any tensor's data follows the header: then `Inference-Header-Content-Length` must say `headerLength`. */
  hasBinaryData: boolean;
}

/** An output a request asks for, and in which form. */
export interface RequestedOutput {
  name: string;
  binary: boolean;
}

export interface InferRequest {
  id?: string;
  inputs: MessageTensor[];
  /** The outputs asked for by name; absent: every output, each as `binaryOutputs` says. */
  outputs?: RequestedOutput[];
  /** `parameters.binary_data_output`: the form of outputs not asked for by name (JSON unless said). */
  binaryOutputs: boolean;
  /** The request's other parameters, as sent (unchecked: what they mean is the server's business). */
  parameters: Record<string, unknown>;
}

export interface InferResponse {
  modelName: string;
  modelVersion?: string;
  id?: string;
  outputs: MessageTensor[];
}

const tensorSchema = z.object({
  name: z.string(),
  datatype: z.enum(KSERVE_DATATYPES),
  shape: z.array(z.number().int().nonnegative()),
  parameters: z.object({ binary_data_size: z.number().int().nonnegative().optional() }).passthrough().optional(),
  data: z.array(z.unknown()).optional(),
});

const inferRequestSchema = z.object({
  id: z.string().optional(),
  inputs: z.array(tensorSchema),
  outputs: z
    .array(z.object({ name: z.string(), parameters: z.object({ binary_data: z.boolean().optional() }).passthrough().optional() }))
    .optional(),
  parameters: z.object({ binary_data_output: z.boolean().optional() }).passthrough().optional(),
});

const inferResponseSchema = z.object({
  model_name: z.string(),
  model_version: z.string().optional(),
  id: z.string().optional(),
  outputs: z.array(tensorSchema),
});

const tensorMetadataSchema = z.object({ name: z.string(), datatype: z.string(), shape: z.array(z.number().int()) });
const modelMetadataSchema = z.object({
  name: z.string(),
  versions: z.array(z.string()).optional(),
  platform: z.string(),
  inputs: z.array(tensorMetadataSchema),
  outputs: z.array(tensorMetadataSchema),
});
/** GET /v2/models/{name}: inputs and outputs with their datatypes and shapes (-1 where variable). */
export type ModelMetadata = z.output<typeof modelMetadataSchema>;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

// ---------------------------------------------------------------------------------------------------------
// The form both directions share.

function encodeMessage(fields: Record<string, unknown>, role: TensorRole, tensors: readonly TensorToSend[]): EncodedMessage {
  const binary: Uint8Array[] = [];
  const header = {
    ...fields,
    [`${role}s`]: tensors.map((tensor) => {
      const { name, shape, datatype } = tensor;
      if (tensor.binary === false) return { name, shape, datatype, data: encodeJsonData(tensor, role) };
      const bytes = encodeBinaryData(tensor, role);
      binary.push(bytes);
      return { name, shape, datatype, parameters: { binary_data_size: bytes.byteLength } };
    }),
  };
  const json = utf8Encoder.encode(JSON.stringify(header));
  if (binary.length === 0) return { body: json, headerLength: json.byteLength, hasBinaryData: false };
  // The one copy of the tensors: into the body.
  const body = new Uint8Array(json.byteLength + binary.reduce((sum, bytes) => sum + bytes.byteLength, 0));
  body.set(json, 0);
  let offset = json.byteLength;
  for (const bytes of binary) {
    body.set(bytes, offset);
    offset += bytes.byteLength;
  }
  return { body, headerLength: json.byteLength, hasBinaryData: true };
}

function decodeMessage<K extends 'inputs' | 'outputs', S extends z.ZodType<Record<K, z.output<typeof tensorSchema>[]>>>(
  body: Uint8Array,
  headerLength: number | undefined,
  schema: S,
  key: K,
): { header: z.output<S>; tensors: MessageTensor[] } {
  const role: TensorRole = key === 'inputs' ? 'input' : 'output';
  const what = role === 'input' ? 'an infer request' : 'an infer response';
  const jsonEnd = headerLength ?? body.byteLength;
  if (!Number.isInteger(jsonEnd) || jsonEnd < 0 || jsonEnd > body.byteLength) {
    throw new KserveError('protocol', `JSON header length ${headerLength} does not fit a body of ${body.byteLength} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(utf8Decoder.decode(body.subarray(0, jsonEnd)));
  } catch (error) {
    throw new KserveError('protocol', `not ${what}: its header is not JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new KserveError('protocol', `not ${what}: ${z.prettifyError(parsed.error)}`);
  const header = parsed.data;
  let offset = jsonEnd;
  const tensors = header[key].map((tensor): MessageTensor => {
    const size = tensor.parameters?.binary_data_size;
    let data: TensorValues;
    if (size !== undefined) {
      const left = body.byteLength - offset;
      if (size > left) throw new KserveError('protocol', `${role} ${tensor.name}: ${size} bytes of binary data, ${left} left in the body`);
      data = decodeBinaryData(tensor, body.subarray(offset, offset + size), role);
      offset += size;
    } else if (tensor.data !== undefined) {
      data = decodeJsonData(tensor, tensor.data, role);
    } else {
      throw new KserveError('protocol', `${role} ${tensor.name} has neither binary data nor JSON data`);
    }
    return { name: tensor.name, datatype: tensor.datatype, shape: tensor.shape, data, binary: size !== undefined };
  });
  if (offset !== body.byteLength) throw new KserveError('protocol', `${body.byteLength - offset} bytes after the last ${role}'s data`);
  return { header, tensors };
}

// ---------------------------------------------------------------------------------------------------------
// Requests and responses.

export interface EncodeRequestOptions {
  /** Only these outputs, each in the form it says or `binaryOutputs`'; absent: every output. */
  outputs?: readonly (string | RequestedOutput)[];
  /** The form of the outputs asked for by name alone, or of all of them. Default: binary. */
  binaryOutputs?: boolean;
  /** Echoed back by the server. */
  id?: string;
  /** More request parameters, for the server. */
  parameters?: Record<string, unknown>;
}

/** Tensors -> an infer request: each input binary unless it says `binary: false`, the outputs asked for binary unless told. */
export function encodeInferRequest(inputs: readonly TensorToSend[], options: EncodeRequestOptions = {}): EncodedMessage {
  const binaryOutputs = options.binaryOutputs ?? true;
  const outputs = options.outputs?.map((output) => {
    const { name, binary } = typeof output === 'string' ? { name: output, binary: binaryOutputs } : output;
    return { name, parameters: { binary_data: binary } };
  });
  return encodeMessage(
    {
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(outputs ? { outputs } : {}),
      parameters: { ...options.parameters, binary_data_output: binaryOutputs },
    },
    'input',
    inputs,
  );
}

/** An infer request body -> its inputs and what it asks for. `headerLength`: the `Inference-Header-Content-Length` value. */
export function decodeInferRequest(body: Uint8Array, headerLength?: number): InferRequest {
  const { header, tensors } = decodeMessage(body, headerLength, inferRequestSchema, 'inputs');
  const { binary_data_output: binaryOutputs = false, ...parameters } = header.parameters ?? {};
  return {
    ...(header.id === undefined ? {} : { id: header.id }),
    inputs: tensors,
    ...(header.outputs
      ? { outputs: header.outputs.map((output) => ({ name: output.name, binary: output.parameters?.binary_data ?? binaryOutputs })) }
      : {}),
    binaryOutputs,
    parameters,
  };
}

/** An infer response: its outputs in order, each binary or JSON as it says. */
export function encodeInferResponse(response: {
  modelName: string;
  modelVersion?: string;
  id?: string;
  outputs: readonly TensorToSend[];
}): EncodedMessage {
  return encodeMessage(
    {
      model_name: response.modelName,
      ...(response.modelVersion === undefined ? {} : { model_version: response.modelVersion }),
      ...(response.id === undefined ? {} : { id: response.id }),
    },
    'output',
    response.outputs,
  );
}

/**
 * An infer response body -> its outputs. `headerLength` is the `Inference-Header-Content-Length` value: the
 * binary data of the outputs that carry `binary_data_size` follows the JSON, in the order of the outputs;
 * absent, the whole body is JSON.
 */
export function decodeInferResponse(body: Uint8Array, headerLength?: number): InferResponse {
  const { header, tensors } = decodeMessage(body, headerLength, inferResponseSchema, 'outputs');
  return {
    modelName: header.model_name,
    ...(header.model_version === undefined ? {} : { modelVersion: header.model_version }),
    ...(header.id === undefined ? {} : { id: header.id }),
    outputs: tensors,
  };
}

// ---------------------------------------------------------------------------------------------------------
// What HTTP carries beside the body, and the other answers.

/** The HTTP headers an encoded message goes with. */
export function messageHeaders(message: EncodedMessage): Record<string, string> {
  if (!message.hasBinaryData) return { 'content-type': 'application/json' };
  return { 'content-type': 'application/octet-stream', [INFERENCE_HEADER_CONTENT_LENGTH]: String(message.headerLength) };
}

/** The `Inference-Header-Content-Length` value as a byte count; absent (null or undefined) when there was none. */
export function readHeaderLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(value)) {
    throw new KserveError('protocol', `${INFERENCE_HEADER_CONTENT_LENGTH} ${JSON.stringify(value.slice(0, 40))} is not a byte count`);
  }
  return Number(value);
}

/** GET /v2/models/{name}'s body -> the model's metadata. */
export function decodeModelMetadata(body: Uint8Array): ModelMetadata {
  let json: unknown;
  try {
    json = JSON.parse(utf8Decoder.decode(body));
  } catch (error) {
    throw new KserveError('protocol', `not model metadata: not JSON (${(error as Error).message})`);
  }
  const parsed = modelMetadataSchema.safeParse(json);
  if (!parsed.success) throw new KserveError('protocol', `not model metadata: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** An error answer's own words: `{"error": "..."}` (Triton, KServe, this gateway), else the start of whatever it is. */
export function decodeErrorMessage(body: Uint8Array): string | undefined {
  const text = new TextDecoder().decode(body).trim();
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { error?: unknown }).error === 'string')
      return (parsed as { error: string }).error;
  } catch {
    // not JSON: the text itself says it
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
