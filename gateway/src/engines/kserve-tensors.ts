/**
 * KServe v2 (Open Inference Protocol) tensors and the two forms their data take in a message, with no
 * message and no I/O: binary (the binary tensor data extension: elements little-endian and row-major, a
 * BYTES element as a 4-byte little-endian length followed by its bytes) and JSON (an array of numbers,
 * flat or nested; booleans for BOOL, strings for BYTES). And the frame path's tensors (onnxruntime's type
 * names) to and from the protocol's, so the output decoders read a remote run's outputs unchanged.
 *
 * Encoding checks the caller's tensor (`usage`: data that does not fill its shape, elements of the wrong
 * size, values JSON cannot carry); decoding checks what was received (`protocol`: data that does not add
 * up). Kept lean because it is on the frame path: encoded numeric data is a view of the typed array, and
 * decoded data a view of the message wherever the alignment allows.
 */
import type { InputTensor, OutputTensor } from '@sightline/shared/model';
import { KserveError } from './kserve-error.ts';

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
type NumericDatatype = Exclude<KserveDatatype, 'BYTES'>;

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

/** A tensor as a message's header describes it, before its data. */
export interface TensorHeader {
  name: string;
  datatype: KserveDatatype;
  shape: readonly number[];
}

/** A tensor as the protocol names it. */
export interface KserveTensor extends TensorHeader {
  data: TensorValues;
}

/** Which side of an inference a tensor is, for the messages of errors: `input image`, `output scores`. */
export type TensorRole = 'input' | 'output';

interface TypedArrayClass {
  readonly BYTES_PER_ELEMENT: number;
  new (length: number): NumericArray;
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): NumericArray;
}

/** How an element reads and writes as a JSON value. */
type JsonForm = 'bool' | 'integer' | 'int64' | 'float' | 'fp16' | 'bf16';

interface NumericType {
  array: TypedArrayClass;
  json: JsonForm;
  /** The element type's name in an OutputTensor, as onnxruntime names it, so output decoders read either. */
  ortType: string;
}

/** FP16 and BF16 have no typed array of their own: their raw 16-bit patterns, as onnxruntime hands float16 over. */
const NUMERIC: Record<NumericDatatype, NumericType> = {
  BOOL: { array: Uint8Array, json: 'bool', ortType: 'bool' },
  UINT8: { array: Uint8Array, json: 'integer', ortType: 'uint8' },
  UINT16: { array: Uint16Array, json: 'integer', ortType: 'uint16' },
  UINT32: { array: Uint32Array, json: 'integer', ortType: 'uint32' },
  UINT64: { array: BigUint64Array, json: 'int64', ortType: 'uint64' },
  INT8: { array: Int8Array, json: 'integer', ortType: 'int8' },
  INT16: { array: Int16Array, json: 'integer', ortType: 'int16' },
  INT32: { array: Int32Array, json: 'integer', ortType: 'int32' },
  INT64: { array: BigInt64Array, json: 'int64', ortType: 'int64' },
  FP16: { array: Uint16Array, json: 'fp16', ortType: 'float16' },
  BF16: { array: Uint16Array, json: 'bf16', ortType: 'bfloat16' },
  FP32: { array: Float32Array, json: 'float', ortType: 'float32' },
  FP64: { array: Float64Array, json: 'float', ortType: 'float64' },
};

/** BYTES outputs, as OutputTensors: one Uint8Array per element. */
export const BYTES_OUTPUT_TYPE = 'bytes';

const INPUT_DATATYPES: Record<InputTensor['dtype'], KserveDatatype> = { float32: 'FP32', uint8: 'UINT8' };

/** The wire is little-endian; typed arrays are in the host's order, which is little-endian on every platform Node ships for but is checked. */
const HOST_IS_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((count, dim) => count * dim, 1);
}

export function isByteStrings(data: TensorValues): data is readonly Uint8Array[] {
  return Array.isArray(data);
}

// ---------------------------------------------------------------------------------------------------------
// BYTES elements in the binary form.

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

/** The wire form of `count` BYTES elements -> the elements (views of `bytes`, not copies). `of` names the tensor in errors. */
export function decodeBytesElements(bytes: Uint8Array, count: number, of?: string): Uint8Array[] {
  const fail = (what: string) => new KserveError('protocol', of === undefined ? what : `${of}: ${what}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const elements: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    if (offset + 4 > bytes.byteLength) throw fail(`BYTES data ends inside the length of element ${i} of ${count}`);
    const length = view.getUint32(offset, true);
    offset += 4;
    if (offset + length > bytes.byteLength) throw fail(`BYTES element ${i} of ${count} claims ${length} bytes, past the end of the data`);
    elements.push(bytes.subarray(offset, offset + length));
    offset += length;
  }
  if (offset !== bytes.byteLength) throw fail(`BYTES data has ${bytes.byteLength - offset} bytes after its ${count} elements`);
  return elements;
}

// ---------------------------------------------------------------------------------------------------------
// A tensor's data checked against its header before it is encoded.

function label(tensor: TensorHeader, role: TensorRole): string {
  return `${role} ${tensor.name}`;
}

function countMismatch(tensor: TensorHeader, role: TensorRole, count: number, length: number): KserveError {
  return new KserveError(
    'usage',
    `${label(tensor, role)}: shape ${JSON.stringify(tensor.shape)} holds ${count} elements, data has ${length}`,
  );
}

function checkedByteStrings(tensor: KserveTensor, role: TensorRole): readonly Uint8Array[] {
  if (!isByteStrings(tensor.data)) throw new KserveError('usage', `${label(tensor, role)}: BYTES data must be an array of Uint8Array`);
  const count = elementCount(tensor.shape);
  if (tensor.data.length !== count) throw countMismatch(tensor, role, count, tensor.data.length);
  return tensor.data;
}

function checkedNumbers(tensor: KserveTensor & { datatype: NumericDatatype }, role: TensorRole): NumericArray {
  const data = tensor.data;
  if (isByteStrings(data)) throw new KserveError('usage', `${label(tensor, role)}: ${tensor.datatype} data must be a typed array`);
  const { array } = NUMERIC[tensor.datatype];
  if (data.BYTES_PER_ELEMENT !== array.BYTES_PER_ELEMENT) {
    throw new KserveError(
      'usage',
      `${label(tensor, role)}: ${tensor.datatype} needs ${array.BYTES_PER_ELEMENT}-byte elements, got ${data.constructor.name}`,
    );
  }
  const count = elementCount(tensor.shape);
  if (data.length !== count) throw countMismatch(tensor, role, count, data.length);
  return data;
}

function isNumeric<T extends TensorHeader>(tensor: T): tensor is T & { datatype: NumericDatatype } {
  return tensor.datatype !== 'BYTES';
}

// ---------------------------------------------------------------------------------------------------------
// The binary form.

/** A copy in memory of its own: `slice` would not do, a Node Buffer's is a view (an HTTP body's, of a shared pool). */
function copyOf(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes);
}

function swapBytes(bytes: Uint8Array, size: number): void {
  for (let i = 0; i < bytes.length; i += size) bytes.subarray(i, i + size).reverse();
}

/** A tensor's data as the binary tensor data extension carries it: a view of the typed array's own memory where that is already right. */
export function encodeBinaryData(tensor: KserveTensor, role: TensorRole): Uint8Array {
  if (!isNumeric(tensor)) return encodeBytesElements(checkedByteStrings(tensor, role));
  const data = checkedNumbers(tensor, role);
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (HOST_IS_LITTLE_ENDIAN || data.BYTES_PER_ELEMENT === 1) return bytes;
  const swapped = copyOf(bytes);
  swapBytes(swapped, data.BYTES_PER_ELEMENT);
  return swapped;
}

/** A tensor's binary data -> its values: a typed array viewing `bytes` where the offset allows (else a copy), BYTES elements as views. */
export function decodeBinaryData(tensor: TensorHeader, bytes: Uint8Array, role: TensorRole): TensorValues {
  const count = elementCount(tensor.shape);
  if (!isNumeric(tensor)) return decodeBytesElements(bytes, count, label(tensor, role));
  const { array } = NUMERIC[tensor.datatype];
  const size = array.BYTES_PER_ELEMENT;
  if (bytes.byteLength !== count * size) {
    throw new KserveError(
      'protocol',
      `${label(tensor, role)}: ${bytes.byteLength} bytes of ${tensor.datatype} for ${count} elements (expected ${count * size})`,
    );
  }
  if (!HOST_IS_LITTLE_ENDIAN && size > 1) {
    const copy = copyOf(bytes);
    swapBytes(copy, size);
    return new array(copy.buffer, 0, count);
  }
  if (bytes.byteOffset % size === 0) return new array(bytes.buffer, bytes.byteOffset, count);
  return new array(copyOf(bytes).buffer, 0, count);
}

// ---------------------------------------------------------------------------------------------------------
// The JSON form.

/** DataView's float16 accessors: in Node since 24 (the gateway's floor), not yet in TypeScript's ES2023 library. */
interface Float16DataView extends DataView {
  getFloat16(byteOffset: number, littleEndian?: boolean): number;
  setFloat16(byteOffset: number, value: number, littleEndian?: boolean): void;
}
const scratch = new DataView(new ArrayBuffer(4)) as Float16DataView;

function fp16Value(bits: number): number {
  scratch.setUint16(0, bits);
  return scratch.getFloat16(0);
}

function fp16Bits(value: number): number {
  scratch.setFloat16(0, value);
  return scratch.getUint16(0);
}

/** A bfloat16 is the high half of a float32. */
function bf16Value(bits: number): number {
  scratch.setUint32(0, bits * 0x10000);
  return scratch.getFloat32(0);
}

/** Rounded to nearest, ties to even, as a cast to bfloat16 rounds. */
function bf16Bits(value: number): number {
  if (Number.isNaN(value)) return 0x7fc0;
  scratch.setFloat32(0, value);
  const bits = scratch.getUint32(0);
  return Math.floor((bits + 0x7fff + (Math.floor(bits / 0x10000) & 1)) / 0x10000) & 0xffff;
}

/**
 * A tensor's data as JSON values (numbers; booleans for BOOL; UTF-8 text for BYTES). What JSON cannot
 * carry exactly is refused rather than sent wrong: NaN and infinities (JSON.stringify writes null), 64-bit
 * integers beyond 2^53, BYTES that are not UTF-8.
 */
export function encodeJsonData(tensor: KserveTensor, role: TensorRole): (number | boolean | string)[] {
  const cannot = (i: number, what: string) =>
    new KserveError('usage', `${label(tensor, role)}: element ${i} is ${what}, which JSON cannot carry; send it binary`);
  if (!isNumeric(tensor)) {
    return checkedByteStrings(tensor, role).map((element, i) => {
      try {
        return utf8Decoder.decode(element);
      } catch {
        throw cannot(i, 'not UTF-8 text');
      }
    });
  }
  const data = checkedNumbers(tensor, role);
  const finite = (value: number, i: number) => {
    if (!Number.isFinite(value)) throw cannot(i, String(value));
    return value;
  };
  switch (NUMERIC[tensor.datatype].json) {
    case 'bool':
      return Array.from(data as Uint8Array, (value) => value !== 0);
    case 'integer':
      return Array.from(data as Int32Array);
    case 'int64':
      return Array.from(data as BigInt64Array, (value, i) => {
        if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) throw cannot(i, String(value));
        return Number(value);
      });
    case 'fp16':
      return Array.from(data as Uint16Array, (bits, i) => finite(fp16Value(bits), i));
    case 'bf16':
      return Array.from(data as Uint16Array, (bits, i) => finite(bf16Value(bits), i));
    case 'float':
      return Array.from(data as Float64Array, finite);
  }
}

/** A tensor's JSON values (flat or nested) -> its values, in the typed array its datatype takes. */
export function decodeJsonData(tensor: TensorHeader, values: readonly unknown[], role: TensorRole): TensorValues {
  const count = elementCount(tensor.shape);
  const flat = values.flat(Infinity);
  if (flat.length !== count) throw new KserveError('protocol', `${label(tensor, role)}: ${flat.length} JSON values for ${count} elements`);
  const notA = (value: unknown, what: string = tensor.datatype) =>
    new KserveError('protocol', `${label(tensor, role)}: JSON value ${String(JSON.stringify(value)).slice(0, 40)} is not a ${what}`);
  if (!isNumeric(tensor)) {
    return flat.map((value) => {
      if (typeof value !== 'string') throw notA(value, 'string (BYTES in JSON)');
      return utf8Encoder.encode(value);
    });
  }
  const { array, json } = NUMERIC[tensor.datatype];
  const out = new array(count);
  for (let i = 0; i < count; i++) {
    const value = flat[i];
    if (json === 'bool') {
      if (value !== true && value !== false && value !== 0 && value !== 1) throw notA(value);
      (out as Uint8Array)[i] = value === true || value === 1 ? 1 : 0;
    } else if (json === 'int64') {
      const integer =
        (typeof value === 'number' && Number.isInteger(value)) || (typeof value === 'string' && /^-?\d+$/.test(value))
          ? BigInt(value)
          : undefined;
      if (integer === undefined) throw notA(value);
      (out as BigInt64Array)[i] = integer;
      // A typed array wraps what does not fit: read back to tell.
      if ((out as BigInt64Array)[i] !== integer) throw notA(value);
    } else {
      if (typeof value !== 'number') throw notA(value);
      if (json === 'integer') {
        (out as Int32Array)[i] = value;
        if ((out as Int32Array)[i] !== value) throw notA(value);
      } else if (json === 'fp16') (out as Uint16Array)[i] = fp16Bits(value);
      else if (json === 'bf16') (out as Uint16Array)[i] = bf16Bits(value);
      else (out as Float64Array)[i] = value;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The frame path's tensors.

/** A decoded output as the shared output decoders read it (onnxruntime's element type names). */
export function toOutputTensor(tensor: KserveTensor): OutputTensor {
  const type = tensor.datatype === 'BYTES' ? BYTES_OUTPUT_TYPE : NUMERIC[tensor.datatype].ortType;
  return { type, data: tensor.data, dims: tensor.shape };
}

/** A model input tensor under its input name -> the protocol's tensor (no copy). */
export function fromInputTensor(name: string, tensor: InputTensor): KserveTensor {
  return { name, datatype: INPUT_DATATYPES[tensor.dtype], shape: tensor.dims, data: tensor.data };
}
