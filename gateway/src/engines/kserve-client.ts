/**
 * A thin client of the Open Inference Protocol (KServe v2) over HTTP, to run a model on a serving engine
 * (Triton, KServe, OpenVINO Model Server, MLServer): server health, model readiness and metadata, and
 * inference with the binary tensor data extension both ways: the request is a JSON header followed by each
 * input's raw little-endian bytes (`Inference-Header-Content-Length` says where the JSON ends,
 * `parameters.binary_data_size` how long each tensor is), and the outputs come back the same way
 * (`binary_data_output`). BYTES tensors travel as 4-byte little-endian lengths, each followed by its bytes.
 *
 * Hand-written because no Node client of the protocol exists on npm, and kept lean because it is on the frame
 * path: one copy of the tensors into the request body, outputs read as views of the response where aligned.
 * It runs on Node's own fetch, whose global dispatcher already keeps connections alive: measured on loopback
 * with the shipped SSD (1 MB in, 0.7 MB out), a fresh connection per request cost ~3 ms more per frame, so no
 * agent of its own. Every request is bounded by a timeout, and every failure is a KserveError that says which
 * engine, which request and what went wrong.
 */
import { z } from 'zod';
import type { InputTensor, ModelRunner, OutputTensor } from '@sightline/shared/model';

/** The protocol's tensor element types. */
export const KSERVE_DATATYPES = [
  'BOOL',
  'UINT8',
  'UINT16',
  'UINT32',
  'UINT64',
  'INT8',
  'INT16',
  'INT32',
  'INT64',
  'FP16',
  'BF16',
  'FP32',
  'FP64',
  'BYTES',
] as const;
export type KserveDatatype = (typeof KSERVE_DATATYPES)[number];

export type NumericArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** Values of a tensor: a typed array (row-major), or for BYTES one byte string per element. */
export type TensorValues = NumericArray | readonly Uint8Array[];

/** A tensor as the protocol names it. */
export interface KserveTensor {
  name: string;
  datatype: KserveDatatype;
  shape: readonly number[];
  data: TensorValues;
}

interface TypedArrayClass {
  readonly BYTES_PER_ELEMENT: number;
  new (length: number): NumericArray;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): NumericArray;
}

interface NumericType {
  array: TypedArrayClass;
  /** The element type's name in an OutputTensor, as onnxruntime names it, so output decoders read either. */
  ortType: string;
}

/** FP16 and BF16 have no typed array of their own: their raw 16-bit patterns, as onnxruntime hands float16 over. */
const NUMERIC: Record<Exclude<KserveDatatype, 'BYTES'>, NumericType> = {
  BOOL: { array: Uint8Array, ortType: 'bool' },
  UINT8: { array: Uint8Array, ortType: 'uint8' },
  UINT16: { array: Uint16Array, ortType: 'uint16' },
  UINT32: { array: Uint32Array, ortType: 'uint32' },
  UINT64: { array: BigUint64Array, ortType: 'uint64' },
  INT8: { array: Int8Array, ortType: 'int8' },
  INT16: { array: Int16Array, ortType: 'int16' },
  INT32: { array: Int32Array, ortType: 'int32' },
  INT64: { array: BigInt64Array, ortType: 'int64' },
  FP16: { array: Uint16Array, ortType: 'float16' },
  BF16: { array: Uint16Array, ortType: 'bfloat16' },
  FP32: { array: Float32Array, ortType: 'float32' },
  FP64: { array: Float64Array, ortType: 'float64' },
};

/** BYTES outputs, as OutputTensors: one Uint8Array per element. */
export const BYTES_OUTPUT_TYPE = 'bytes';

const INPUT_DATATYPES: Record<InputTensor['dtype'], KserveDatatype> = { float32: 'FP32', uint8: 'UINT8' };

/** The wire is little-endian; typed arrays are in the host's order, which is little-endian on every platform Node ships for but is checked. */
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export const INFERENCE_HEADER_CONTENT_LENGTH = 'inference-header-content-length';

/** What went wrong, for callers that react differently: a circuit breaker counts only the engine's failures. */
export type KserveErrorKind = 'http' | 'timeout' | 'connection' | 'protocol' | 'aborted' | 'usage';

export class KserveError extends Error {
  override readonly name = 'KserveError';
  constructor(
    readonly kind: KserveErrorKind,
    message: string,
    readonly details: { status?: number; engineMessage?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  /** The HTTP status the engine answered with (kind `http`). */
  get status(): number | undefined {
    return this.details.status;
  }
}

/**
 * Whether an error says the engine is unwell (unreachable, too slow, failing, speaking nonsense) rather than
 * the request being wrong (HTTP 4xx) or the caller giving up: what a circuit breaker should count.
 */
export function isEngineFailure(error: unknown): boolean {
  if (!(error instanceof KserveError)) return false;
  if (error.kind === 'http') return (error.status ?? 500) >= 500;
  return error.kind === 'timeout' || error.kind === 'connection' || error.kind === 'protocol';
}

// ---------------------------------------------------------------------------------------------------------
// Binary tensor data: encoding and decoding, without any I/O.

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((count, dim) => count * dim, 1);
}

/** BYTES elements -> their wire form: per element a 4-byte little-endian length, then the bytes. */
export function encodeBytesElements(elements: readonly Uint8Array[]): Uint8Array {
  const size = elements.reduce((sum, element) => sum + 4 + element.byteLength, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const element of elements) {
    view.setUint32(offset, element.byteLength, true);
    out.set(element, offset + 4);
    offset += 4 + element.byteLength;
  }
  return out;
}

/** The wire form of `count` BYTES elements -> the elements (views of `bytes`, not copies). */
export function decodeBytesElements(bytes: Uint8Array, count: number): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const elements: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    if (offset + 4 > bytes.byteLength) throw new Error(`BYTES data ends inside the length of element ${i} of ${count}`);
    const length = view.getUint32(offset, true);
    offset += 4;
    if (offset + length > bytes.byteLength)
      throw new Error(`BYTES element ${i} of ${count} claims ${length} bytes, past the end of the data`);
    elements.push(bytes.subarray(offset, offset + length));
    offset += length;
  }
  if (offset !== bytes.byteLength) throw new Error(`BYTES data has ${bytes.byteLength - offset} bytes after its ${count} elements`);
  return elements;
}

function swapBytes(bytes: Uint8Array, size: number): void {
  for (let i = 0; i < bytes.length; i += size) bytes.subarray(i, i + size).reverse();
}

function isByteStrings(data: TensorValues): data is readonly Uint8Array[] {
  return Array.isArray(data);
}

/** One tensor's bytes as they go on the wire: a view of the typed array's own memory where that is already right. */
function tensorBytes(tensor: KserveTensor): Uint8Array {
  const count = elementCount(tensor.shape);
  if (tensor.datatype === 'BYTES') {
    if (!isByteStrings(tensor.data)) throw new KserveError('usage', `input ${tensor.name}: BYTES data must be an array of Uint8Array`);
    if (tensor.data.length !== count) {
      throw new KserveError(
        'usage',
        `input ${tensor.name}: shape ${JSON.stringify(tensor.shape)} holds ${count} elements, data has ${tensor.data.length}`,
      );
    }
    return encodeBytesElements(tensor.data);
  }
  const data = tensor.data;
  if (isByteStrings(data)) throw new KserveError('usage', `input ${tensor.name}: ${tensor.datatype} data must be a typed array`);
  const { array } = NUMERIC[tensor.datatype];
  if (data.BYTES_PER_ELEMENT !== array.BYTES_PER_ELEMENT) {
    throw new KserveError(
      'usage',
      `input ${tensor.name}: ${tensor.datatype} needs ${array.BYTES_PER_ELEMENT}-byte elements, got ${data.constructor.name}`,
    );
  }
  if (data.length !== count) {
    throw new KserveError(
      'usage',
      `input ${tensor.name}: shape ${JSON.stringify(tensor.shape)} holds ${count} elements, data has ${data.length}`,
    );
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** A tensor as the encoder takes it: one or more byte chunks that together are its data. */
export interface EncodableInput {
  name: string;
  datatype: KserveDatatype;
  shape: readonly number[];
  chunks: readonly Uint8Array[];
}

export interface EncodeOptions {
  /** Only these outputs, each asked for as binary; absent: every output, binary. */
  outputs?: readonly string[];
  /** Echoed back by the engine. */
  id?: string;
}

export interface EncodedInferRequest {
  /** JSON header then every input's bytes. */
  body: Uint8Array;
  /** Byte length of the JSON header: the `Inference-Header-Content-Length` value. */
  headerLength: number;
}

function encodeInputs(inputs: readonly EncodableInput[], options: EncodeOptions): EncodedInferRequest {
  return encodeTensorMessage(
    {
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(options.outputs ? { outputs: options.outputs.map((name) => ({ name, parameters: { binary_data: true } })) } : {}),
      parameters: { binary_data_output: true },
    },
    'inputs',
    inputs,
  );
}

/**
 * A request or response of the binary tensor data extension (both directions have the same form): the
 * JSON header (`fields`, plus the tensors under `key` each with its `binary_data_size`), then every tensor's
 * little-endian bytes in order. The gateway's own v2 endpoint answers with it too (http/v2-routes.ts).
 */
export function encodeTensorMessage(
  fields: Record<string, unknown>,
  key: 'inputs' | 'outputs',
  tensors: readonly EncodableInput[],
): EncodedInferRequest {
  const sizes = tensors.map((tensor) => tensor.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  const header = {
    ...fields,
    [key]: tensors.map((tensor, i) => ({
      name: tensor.name,
      shape: tensor.shape,
      datatype: tensor.datatype,
      parameters: { binary_data_size: sizes[i] },
    })),
  };
  const headerBytes = utf8Encoder.encode(JSON.stringify(header));
  const body = new Uint8Array(headerBytes.byteLength + sizes.reduce((a, b) => a + b, 0));
  body.set(headerBytes, 0);
  let offset = headerBytes.byteLength;
  for (const tensor of tensors) {
    const elementSize = tensor.datatype === 'BYTES' ? 1 : NUMERIC[tensor.datatype].array.BYTES_PER_ELEMENT;
    for (const chunk of tensor.chunks) {
      body.set(chunk, offset);
      if (!HOST_IS_LITTLE_ENDIAN && elementSize > 1) swapBytes(body.subarray(offset, offset + chunk.byteLength), elementSize);
      offset += chunk.byteLength;
    }
  }
  return { body, headerLength: headerBytes.byteLength };
}

/** One tensor as the encoder takes it (its bytes checked against its shape and type). */
export function encodableTensor(tensor: KserveTensor): EncodableInput {
  return { name: tensor.name, datatype: tensor.datatype, shape: tensor.shape, chunks: [tensorBytes(tensor)] };
}

/** Tensors -> an infer request body with the binary tensor data extension, every output asked for as binary. */
export function encodeInferRequest(inputs: readonly KserveTensor[], options: EncodeOptions = {}): EncodedInferRequest {
  return encodeInputs(inputs.map(encodableTensor), options);
}

const tensorSchema = z.object({
  name: z.string(),
  datatype: z.enum(KSERVE_DATATYPES),
  shape: z.array(z.number().int().nonnegative()),
  parameters: z.object({ binary_data_size: z.number().int().nonnegative().optional() }).optional(),
  data: z.array(z.unknown()).optional(),
});

const inferResponseSchema = z.object({
  model_name: z.string(),
  model_version: z.string().optional(),
  id: z.string().optional(),
  outputs: z.array(tensorSchema),
});

export interface InferResponse {
  modelName: string;
  modelVersion?: string;
  id?: string;
  outputs: KserveTensor[];
}

/** Little-endian bytes of `count` elements -> a typed array: a view where the offset allows, else a copy. */
function numericFromBytes(datatype: Exclude<KserveDatatype, 'BYTES'>, bytes: Uint8Array, count: number, name: string): NumericArray {
  const { array } = NUMERIC[datatype];
  const size = array.BYTES_PER_ELEMENT;
  if (bytes.byteLength !== count * size) {
    throw new Error(`output ${name}: ${bytes.byteLength} bytes of ${datatype} for ${count} elements (expected ${count * size})`);
  }
  if (!HOST_IS_LITTLE_ENDIAN && size > 1) {
    const copy = bytes.slice();
    swapBytes(copy, size);
    return new array(copy.buffer, 0, count);
  }
  if (bytes.byteOffset % size === 0) return new array(bytes.buffer, bytes.byteOffset, count);
  return new array(bytes.slice().buffer, 0, count);
}

/** An output sent as JSON (an engine may ignore the binary request for some): its values as the same typed array. */
function numericFromJson(
  datatype: Exclude<KserveDatatype, 'BYTES'>,
  values: readonly unknown[],
  count: number,
  name: string,
): NumericArray {
  const flat = values.flat(Infinity);
  if (flat.length !== count) throw new Error(`output ${name}: ${flat.length} JSON values for ${count} elements`);
  const out = new NUMERIC[datatype].array(count);
  const wide = datatype === 'INT64' || datatype === 'UINT64';
  for (let i = 0; i < count; i++) {
    const value = flat[i];
    if (wide) (out as BigInt64Array | BigUint64Array)[i] = BigInt(value as number | string);
    else if (typeof value === 'boolean') (out as Uint8Array)[i] = value ? 1 : 0;
    else if (typeof value === 'number') (out as Float32Array)[i] = value;
    else throw new Error(`output ${name}: JSON value ${JSON.stringify(value)} is not a ${datatype}`);
  }
  return out;
}

function bytesFromJson(values: readonly unknown[], count: number, name: string): Uint8Array[] {
  const flat = values.flat(Infinity);
  if (flat.length !== count) throw new Error(`output ${name}: ${flat.length} JSON values for ${count} elements`);
  return flat.map((value) => {
    if (typeof value !== 'string') throw new Error(`output ${name}: BYTES JSON value ${JSON.stringify(value)} is not a string`);
    return utf8Encoder.encode(value);
  });
}

/**
 * An infer response body -> its outputs. `headerLength` is the `Inference-Header-Content-Length` value: the
 * binary data of the outputs that carry `binary_data_size` follows the JSON, in the order of the outputs;
 * absent, the whole body is JSON. Throws (a plain Error) on anything that does not add up.
 */
export function decodeInferResponse(body: Uint8Array, headerLength?: number): InferResponse {
  const { header, tensors } = decodeTensorMessage(body, headerLength, inferResponseSchema, 'outputs');
  return {
    modelName: header.model_name,
    ...(header.model_version === undefined ? {} : { modelVersion: header.model_version }),
    ...(header.id === undefined ? {} : { id: header.id }),
    outputs: tensors,
  };
}

/** The tensors of a header parsed by `schema` under `key`, with their data from the binary part or the JSON. */
export function decodeTensorMessage<S extends z.ZodType<Record<K, Array<z.output<typeof tensorSchema>>>>, K extends 'inputs' | 'outputs'>(
  body: Uint8Array,
  headerLength: number | undefined,
  schema: S,
  key: K,
): { header: z.output<S>; tensors: KserveTensor[] } {
  const jsonEnd = headerLength ?? body.byteLength;
  if (!Number.isInteger(jsonEnd) || jsonEnd < 0 || jsonEnd > body.byteLength) {
    throw new Error(`JSON header length ${headerLength} does not fit a body of ${body.byteLength} bytes`);
  }
  const parsed = schema.safeParse(JSON.parse(utf8Decoder.decode(body.subarray(0, jsonEnd))));
  if (!parsed.success) throw new Error(`not an infer ${key === 'outputs' ? 'response' : 'request'}: ${z.prettifyError(parsed.error)}`);
  const header = parsed.data;
  let offset = jsonEnd;
  const tensors = header[key].map((tensor): KserveTensor => {
    const { name, datatype, shape } = tensor;
    const count = elementCount(shape);
    const size = tensor.parameters?.binary_data_size;
    let data: TensorValues;
    if (size !== undefined) {
      if (offset + size > body.byteLength)
        throw new Error(`${key.slice(0, -1)} ${name}: ${size} bytes of binary data, ${body.byteLength - offset} left in the body`);
      const bytes = body.subarray(offset, offset + size);
      offset += size;
      data = datatype === 'BYTES' ? decodeBytesElements(bytes, count) : numericFromBytes(datatype, bytes, count, name);
    } else if (tensor.data !== undefined) {
      data = datatype === 'BYTES' ? bytesFromJson(tensor.data, count, name) : numericFromJson(datatype, tensor.data, count, name);
    } else {
      throw new Error(`${key.slice(0, -1)} ${name} has neither binary data nor JSON data`);
    }
    return { name, datatype, shape, data };
  });
  if (offset !== body.byteLength) throw new Error(`${body.byteLength - offset} bytes after the last ${key.slice(0, -1)}'s data`);
  return { header, tensors };
}

export { tensorSchema };

/** A decoded output as the shared output decoders read it (onnxruntime's element type names). */
export function toOutputTensor(tensor: KserveTensor): OutputTensor {
  const type = tensor.datatype === 'BYTES' ? BYTES_OUTPUT_TYPE : NUMERIC[tensor.datatype].ortType;
  return { type, data: tensor.data, dims: tensor.shape };
}

/** A model input tensor under its input name -> the protocol's tensor (no copy). */
export function fromInputTensor(name: string, tensor: InputTensor): KserveTensor {
  return { name, datatype: INPUT_DATATYPES[tensor.dtype], shape: tensor.dims, data: tensor.data };
}

/**
 * Several frames' inputs -> one request's, concatenated along dim 0 (without copying them first: each frame's
 * tensor is one chunk of the body). Every frame must name the same inputs, with the same dtype and the same
 * dims after the first.
 */
function batchInputs(frames: readonly Readonly<Record<string, InputTensor>>[]): { inputs: EncodableInput[]; framesDim0: number[] } {
  const first = frames[0];
  if (!first) throw new KserveError('usage', 'a batch needs at least one frame');
  const names = Object.keys(first);
  if (names.length === 0) throw new KserveError('usage', 'a frame needs at least one input');
  const framesDim0 = frames.map((frame, f) => {
    for (const name of names) if (!frame[name]) throw new KserveError('usage', `frame ${f} has no input ${name}`);
    if (Object.keys(frame).length !== names.length) throw new KserveError('usage', `frame ${f} names other inputs than frame 0`);
    const dims = frame[names[0]!]!.dims;
    if (dims.length === 0) throw new KserveError('usage', `frame ${f}: input ${names[0]} has no batch dimension`);
    return dims[0]!;
  });
  const inputs = names.map((name): EncodableInput => {
    const reference = first[name]!;
    const chunks = frames.map((frame, f) => {
      const tensor = frame[name]!;
      const sameShape = tensor.dims.length === reference.dims.length && tensor.dims.every((d, i) => i === 0 || d === reference.dims[i]);
      if (tensor.dtype !== reference.dtype || !sameShape) {
        throw new KserveError(
          'usage',
          `frame ${f}: input ${name} is ${tensor.dtype} ${JSON.stringify(tensor.dims)}, frame 0's ${reference.dtype} ${JSON.stringify(reference.dims)}`,
        );
      }
      if (tensor.dims[0] !== framesDim0[f]) throw new KserveError('usage', `frame ${f}: its inputs disagree on the batch dimension`);
      return tensorBytes(fromInputTensor(name, tensor));
    });
    const total = framesDim0.reduce((a, b) => a + b, 0);
    return { name, datatype: INPUT_DATATYPES[reference.dtype], shape: [total, ...reference.dims.slice(1)], chunks };
  });
  return { inputs, framesDim0 };
}

/** A batch's outputs -> each frame's, as views along dim 0. */
function splitOutputs(outputs: readonly KserveTensor[], framesDim0: readonly number[]): Record<string, OutputTensor>[] {
  const total = framesDim0.reduce((a, b) => a + b, 0);
  const perFrame: Record<string, OutputTensor>[] = framesDim0.map(() => ({}));
  for (const output of outputs) {
    if (output.shape[0] !== total) {
      throw new KserveError('protocol', `output ${output.name} has shape ${JSON.stringify(output.shape)}, not ${total} frames along dim 0`);
    }
    const rowElements = elementCount(output.shape.slice(1));
    let row = 0;
    framesDim0.forEach((rows, f) => {
      const from = row * rowElements;
      const to = (row + rows) * rowElements;
      const data = isByteStrings(output.data) ? output.data.slice(from, to) : output.data.subarray(from, to);
      perFrame[f]![output.name] = toOutputTensor({ ...output, shape: [rows, ...output.shape.slice(1)], data });
      row += rows;
    });
  }
  return perFrame;
}

// ---------------------------------------------------------------------------------------------------------
// The client.

const tensorMetadataSchema = z.object({ name: z.string(), datatype: z.string(), shape: z.array(z.number().int()) });
const modelMetadataSchema = z.object({
  name: z.string(),
  versions: z.array(z.string()).optional(),
  platform: z.string(),
  inputs: z.array(tensorMetadataSchema),
  outputs: z.array(tensorMetadataSchema),
});
export type ModelMetadata = z.output<typeof modelMetadataSchema>;

export const DEFAULT_KSERVE_TIMEOUT_MS = 5000;

export interface KserveClientOptions {
  /** The engine's HTTP endpoint: `http://127.0.0.1:8000`. */
  url: string;
  /** Bound on each request, from sending it to the answer's last byte, unless a call says otherwise. */
  timeoutMs?: number;
  /** Sent with every request (an engine behind a proxy that asks for a token). */
  headers?: Readonly<Record<string, string>>;
}

export interface RequestOptions {
  timeoutMs?: number;
  /** The caller giving up (a frame superseded, a drain). */
  signal?: AbortSignal;
}

export interface ModelRequestOptions extends RequestOptions {
  /** A model version; absent: the engine's choice (its latest). */
  version?: string;
}

export interface InferOptions extends ModelRequestOptions {
  /** Only these outputs; absent: all of them. */
  outputs?: readonly string[];
  id?: string;
}

interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
}

interface Call extends RequestOptions {
  method: 'GET' | 'POST';
  path: string;
  body?: Uint8Array;
  headers?: Record<string, string>;
}

export class KserveClient {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly headers: Readonly<Record<string, string>>;

  constructor(options: KserveClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_KSERVE_TIMEOUT_MS;
    this.headers = options.headers ?? {};
  }

  /** GET /v2/health/live: the server answers 200. Throws KserveError when it cannot be reached. */
  async serverLive(options: RequestOptions = {}): Promise<boolean> {
    return (await this.call({ ...options, method: 'GET', path: '/v2/health/live' })).status === 200;
  }

  /** GET /v2/health/ready: the server answers 200 (Triton: and every model it was told to load is ready). */
  async serverReady(options: RequestOptions = {}): Promise<boolean> {
    return (await this.call({ ...options, method: 'GET', path: '/v2/health/ready' })).status === 200;
  }

  /** GET /v2/models/{name}/ready: 200 means ready; any other answer (unknown model, loading) means not. */
  async modelReady(model: string, options: ModelRequestOptions = {}): Promise<boolean> {
    return (await this.call({ ...options, method: 'GET', path: `${modelPath(model, options.version)}/ready` })).status === 200;
  }

  /** GET /v2/models/{name}: inputs and outputs with their datatypes and shapes (-1 where variable). */
  async modelMetadata(model: string, options: ModelRequestOptions = {}): Promise<ModelMetadata> {
    const call: Call = { ...options, method: 'GET', path: modelPath(model, options.version) };
    const answer = this.expectOk(call, await this.call(call));
    let parsed: ReturnType<typeof modelMetadataSchema.safeParse>;
    try {
      parsed = modelMetadataSchema.safeParse(JSON.parse(utf8Decoder.decode(answer.body)));
    } catch (error) {
      throw this.protocolError(call, `answered with a body that is not JSON`, error);
    }
    if (!parsed.success) throw this.protocolError(call, `answered with no model metadata: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  }

  /** POST /v2/models/{name}/infer with protocol tensors, binary both ways. */
  async inferTensors(model: string, inputs: readonly KserveTensor[], options: InferOptions = {}): Promise<InferResponse> {
    return this.send(model, encodeInferRequest(inputs, options), options);
  }

  /** One frame's inputs (by input name) -> its outputs (by output name), as the frame path's ModelRunner takes and gives them. */
  async infer(
    model: string,
    inputs: Readonly<Record<string, InputTensor>>,
    options: InferOptions = {},
  ): Promise<Record<string, OutputTensor>> {
    const tensors = Object.entries(inputs).map(([name, tensor]) => fromInputTensor(name, tensor));
    const response = await this.inferTensors(model, tensors, options);
    return Object.fromEntries(response.outputs.map((output) => [output.name, toOutputTensor(output)]));
  }

  /**
   * Several frames in one request, concatenated along dim 0 (each frame's own dim 0, usually 1), and the
   * outputs split back per frame, in order. For a model served with a batch dimension.
   */
  async inferBatch(
    model: string,
    frames: readonly Readonly<Record<string, InputTensor>>[],
    options: InferOptions = {},
  ): Promise<Record<string, OutputTensor>[]> {
    const { inputs, framesDim0 } = batchInputs(frames);
    const response = await this.send(model, encodeInputs(inputs, options), options);
    return splitOutputs(response.outputs, framesDim0);
  }

  /** The model's run step for the frame path: one frame's tensors to its outputs on this engine. */
  runner(model: string, options: Omit<InferOptions, 'signal' | 'id'> = {}): ModelRunner {
    return (inputs) => this.infer(model, inputs, options);
  }

  private async send(model: string, request: EncodedInferRequest, options: InferOptions): Promise<InferResponse> {
    const call: Call = {
      ...options,
      method: 'POST',
      path: `${modelPath(model, options.version)}/infer`,
      body: request.body,
      headers: { 'content-type': 'application/octet-stream', [INFERENCE_HEADER_CONTENT_LENGTH]: String(request.headerLength) },
    };
    const answer = this.expectOk(call, await this.call(call));
    const length = answer.headers.get(INFERENCE_HEADER_CONTENT_LENGTH);
    try {
      return decodeInferResponse(answer.body, length === null ? undefined : Number(length));
    } catch (error) {
      throw this.protocolError(call, `answered with an infer response that does not decode: ${(error as Error).message}`, error);
    }
  }

  /** One HTTP exchange, bounded by the timeout and the caller's signal; transport failures become KserveErrors. */
  private async call(call: Call): Promise<Answer> {
    const timeoutMs = call.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const callerAbort = () => controller.abort();
    call.signal?.addEventListener('abort', callerAbort, { once: true });
    try {
      if (call.signal?.aborted) throw call.signal.reason;
      const response = await fetch(`${this.url}${call.path}`, {
        method: call.method,
        // Identity: fetch asks for gzip by default and Triton obliges, compressing the outputs: +110 ms a frame here.
        headers: { accept: 'application/json, application/octet-stream', 'accept-encoding': 'identity', ...this.headers, ...call.headers },
        // A plain ArrayBuffer-backed view: the DOM typings of fetch (used where the browser lib is loaded) accept no other.
        ...(call.body ? { body: call.body as Uint8Array<ArrayBuffer> } : {}),
        signal: controller.signal,
      });
      const body = new Uint8Array(await response.arrayBuffer());
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      throw this.transportError(call, error, timedOut, timeoutMs);
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener('abort', callerAbort);
    }
  }

  private describe(call: Call): string {
    return `${call.method} ${this.url}${call.path}`;
  }

  private expectOk(call: Call, answer: Answer): Answer {
    if (answer.status === 200) return answer;
    const engineMessage = engineErrorMessage(answer.body);
    throw new KserveError('http', `${this.describe(call)} answered HTTP ${answer.status}${engineMessage ? `: ${engineMessage}` : ''}`, {
      status: answer.status,
      ...(engineMessage ? { engineMessage } : {}),
    });
  }

  private protocolError(call: Call, what: string, cause?: unknown): KserveError {
    return new KserveError('protocol', `${this.describe(call)} ${what}`, cause === undefined ? {} : { cause });
  }

  private transportError(call: Call, error: unknown, timedOut: boolean, timeoutMs: number): KserveError {
    if (error instanceof KserveError) return error;
    const what = this.describe(call);
    if (timedOut) return new KserveError('timeout', `${what} got no answer within ${timeoutMs} ms`, { cause: error });
    if (call.signal?.aborted) return new KserveError('aborted', `${what} was abandoned by its caller`, { cause: error });
    const code = errorCode(error);
    if (code === 'ECONNREFUSED')
      return new KserveError('connection', `${what} failed: connection refused (is the engine running?)`, { cause: error });
    const reason = rootMessage(error);
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
      return new KserveError('connection', `${what} failed: the engine closed the connection before answering (${reason})`, {
        cause: error,
      });
    }
    return new KserveError('connection', `${what} failed: ${reason}${code ? ` (${code})` : ''}`, { cause: error });
  }
}

function modelPath(model: string, version: string | undefined): string {
  return `/v2/models/${encodeURIComponent(model)}${version === undefined ? '' : `/versions/${encodeURIComponent(version)}`}`;
}

/** The engine's own words: `{"error": "..."}` in the body (Triton, KServe), else the start of whatever it sent. */
function engineErrorMessage(body: Uint8Array): string | undefined {
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

/** fetch wraps the socket's error in `cause` (an AggregateError when several addresses were tried). */
function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner) && inner.length > 0) return errorCode(inner[0]);
  }
  return undefined;
}

function rootMessage(error: unknown): string {
  let e: unknown = error;
  while (e && typeof e === 'object' && (e as { cause?: unknown }).cause) e = (e as { cause: unknown }).cause;
  return e instanceof Error ? e.message : String(e);
}
