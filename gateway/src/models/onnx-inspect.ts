/**
 * What an `.onnx` file says about itself, read without loading the model: its `metadata_props` (where
 * Ultralytics writes `names`, `imgsz`, `task`, ...), opsets and the graph's inputs and outputs (names,
 * element types, shapes with symbolic dimensions). The file is a protobuf `ModelProto` that is almost
 * entirely weights, so it is walked field by field with positioned reads: the graph's nodes and
 * initializers are stepped over by their length, never read: the 18 MB SSD wrapped into a YOLO layout
 * is described from 240 KB, in about 230 reads of 1 KiB (one per run of nodes and per weight stepped
 * over). The small messages wanted (value infos, metadata entries, opsets) are decoded by protobufjs
 * from a subset of onnx.proto (onnx/onnx.proto, IR version 10).
 *
 * Whatever makes a file unreadable becomes an OnnxInspectError whose message is one line for the person
 * who put the file there (not ONNX, what it looks like instead, truncated, corrupt).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import protobuf from 'protobufjs';

/** One dimension: its size, its symbolic name (`batch`, `height`), or null when the graph says nothing. */
export type OnnxDim = number | string | null;

export interface OnnxValueInfo {
  name: string;
  /** onnxruntime's name for the element type (`float32`, `uint8`, `int64`, ...), or `map`/`sequence`/... for non-tensors. */
  elementType: string;
  /** Null when the graph declares no shape (unknown rank). */
  shape: OnnxDim[] | null;
}

export interface OnnxInspection {
  irVersion: number;
  producer: string;
  /** Operator set versions by domain ('' is the default ONNX domain). */
  opsets: Record<string, number>;
  /** `metadata_props`, key -> value, as written (Ultralytics writes Python literals: `{0: 'person'}`, `[640, 640]`, `True`). */
  metadata: Record<string, string>;
  /** The graph's inputs that are fed at run time (initializers listed as inputs by old exporters left out). */
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
}

/** A file that is not a readable ONNX model; the message says why in one line. */
export class OnnxInspectError extends Error {
  override name = 'OnnxInspectError';
}

// ModelProto and GraphProto field numbers (onnx.proto).
const MODEL = { irVersion: 1, producerName: 2, graph: 7, opsetImport: 8, metadataProps: 14 } as const;
const GRAPH = { initializer: 5, input: 11, output: 12 } as const;
const TENSOR_NAME = 8;

const WIRE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

/** The few onnx.proto messages decoded whole: each is small (names, shapes, key/value strings). */
const root = protobuf.Root.fromJSON({
  nested: {
    StringStringEntryProto: { fields: { key: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
    OperatorSetIdProto: { fields: { domain: { type: 'string', id: 1 }, version: { type: 'int64', id: 2 } } },
    TensorShapeProto: {
      fields: { dim: { rule: 'repeated', type: 'Dimension', id: 1 } },
      nested: {
        Dimension: {
          oneofs: { value: { oneof: ['dimValue', 'dimParam'] } },
          fields: { dimValue: { type: 'int64', id: 1 }, dimParam: { type: 'string', id: 2 }, denotation: { type: 'string', id: 3 } },
        },
      },
    },
    TypeProto: {
      oneofs: { value: { oneof: ['tensorType', 'sequenceType', 'mapType', 'optionalType', 'sparseTensorType'] } },
      fields: {
        tensorType: { type: 'Tensor', id: 1 },
        sequenceType: { type: 'Opaque', id: 4 },
        mapType: { type: 'Opaque', id: 5 },
        optionalType: { type: 'Opaque', id: 9 },
        sparseTensorType: { type: 'Tensor', id: 8 },
      },
      nested: {
        Tensor: { fields: { elemType: { type: 'int32', id: 1 }, shape: { type: 'TensorShapeProto', id: 2 } } },
        Opaque: { fields: {} },
      },
    },
    ValueInfoProto: { fields: { name: { type: 'string', id: 1 }, type: { type: 'TypeProto', id: 2 } } },
  },
});
const StringStringEntry = root.lookupType('StringStringEntryProto');
const OperatorSetId = root.lookupType('OperatorSetIdProto');
const ValueInfo = root.lookupType('ValueInfoProto');

/** TensorProto.DataType -> onnxruntime's name. */
const ELEMENT_TYPES: Record<number, string> = {
  1: 'float32',
  2: 'uint8',
  3: 'int8',
  4: 'uint16',
  5: 'int16',
  6: 'int32',
  7: 'int64',
  8: 'string',
  9: 'bool',
  10: 'float16',
  11: 'float64',
  12: 'uint32',
  13: 'uint64',
  14: 'complex64',
  15: 'complex128',
  16: 'bfloat16',
  17: 'float8e4m3fn',
  18: 'float8e4m3fnuz',
  19: 'float8e5m2',
  20: 'float8e5m2fnuz',
  21: 'uint4',
  22: 'int4',
  23: 'float4e2m1',
};

/** Bytes at any offset of a model, without holding it all. */
export interface ByteSource {
  readonly size: number;
  /** `length` bytes from `position` (fewer at the end of the file). */
  read(position: number, length: number): Uint8Array;
}

/**
 * Tag and length prefixes are read through one 1 KiB window: the next field is usually in it (nodes,
 * entries), and stepping over a weight costs one refill.
 */
const WINDOW = 1024;

class WindowedSource {
  private start = 0;
  private bytes: Uint8Array = new Uint8Array(0);

  constructor(private readonly source: ByteSource) {}

  get size(): number {
    return this.source.size;
  }

  /** At least `length` bytes from `position` if the file has them. */
  view(position: number, length: number): Uint8Array {
    const end = position + length;
    if (position < this.start || end > this.start + this.bytes.length) {
      this.start = position;
      this.bytes = this.source.read(position, Math.max(length, WINDOW));
    }
    return this.bytes.subarray(position - this.start, Math.min(end, this.start + this.bytes.length) - this.start);
  }

  /** Exactly `length` bytes (a message to decode), read on their own if larger than the window. */
  exact(position: number, length: number): Uint8Array {
    return length <= WINDOW ? this.view(position, length) : this.source.read(position, length);
  }
}

interface Field {
  number: number;
  wireType: number;
  /** Varint fields: the value. */
  value: number;
  /** Length-delimited fields: where the bytes are. */
  start: number;
  end: number;
}

/** Why a walk stopped: the file ended inside a field, or the bytes are not protobuf at all. */
class WalkError extends Error {
  constructor(
    readonly kind: 'eof' | 'invalid',
    message: string,
    /** The field being read when the file ended. */
    readonly field?: number,
  ) {
    super(message);
  }
}

/** The fields of the message in [start, end), in file order, each handed to `visit`. */
function walk(src: WindowedSource, start: number, end: number, visit: (field: Field) => void): void {
  let position = start;
  while (position < end) {
    const head = src.view(position, 20);
    const reader = protobuf.Reader.create(head);
    // A varint is at most 10 bytes: one the reader cannot finish with 20 in hand is malformed, not cut off.
    const cutOff = head.length < 20;
    let tag: number;
    try {
      tag = reader.uint32();
    } catch {
      throw cutOff
        ? new WalkError('eof', `the file ends inside a field header at byte ${position}`)
        : new WalkError('invalid', `byte ${position} starts no protobuf field`);
    }
    const number = tag >>> 3;
    const wireType = tag & 7;
    if (number === 0) throw new WalkError('invalid', `byte ${position} starts no protobuf field`);
    const field: Field = { number, wireType, value: 0, start: 0, end: 0 };
    try {
      switch (wireType) {
        case WIRE.varint: {
          const value = reader.int64();
          field.value = protobuf.util.LongBits.from(value).toNumber(false);
          position += reader.pos;
          break;
        }
        case WIRE.fixed64:
          position += reader.pos + 8;
          break;
        case WIRE.fixed32:
          position += reader.pos + 4;
          break;
        case WIRE.bytes: {
          const length = reader.uint32();
          field.start = position + reader.pos;
          field.end = field.start + length;
          position = field.end;
          break;
        }
        default:
          throw new WalkError('invalid', `byte ${position} starts no protobuf field (wire type ${wireType})`);
      }
    } catch (error) {
      if (error instanceof WalkError) throw error;
      throw cutOff
        ? new WalkError('eof', `the file ends inside field ${number} at byte ${position}`, number)
        : new WalkError('invalid', `field ${number} at byte ${position} is malformed`);
    }
    if (position > end) {
      const where = end === src.size ? 'the end of the file' : 'the end of its enclosing message';
      throw new WalkError(end === src.size ? 'eof' : 'invalid', `field ${number} runs ${position - end} bytes past ${where}`, number);
    }
    visit(field);
  }
}

function decodeValueInfo(bytes: Uint8Array): OnnxValueInfo & { sparse: boolean } {
  const info = ValueInfo.toObject(ValueInfo.decode(bytes), { longs: Number, oneofs: true }) as {
    name?: string;
    type?: {
      value?: string;
      tensorType?: { elemType?: number; shape?: { dim?: { dimValue?: number; dimParam?: string }[] } };
      sparseTensorType?: { elemType?: number; shape?: { dim?: { dimValue?: number; dimParam?: string }[] } };
    };
  };
  const tensor = info.type?.tensorType ?? info.type?.sparseTensorType;
  const kind = info.type?.value?.replace(/Type$/, '') ?? 'unknown';
  const elementType = tensor ? (ELEMENT_TYPES[tensor.elemType ?? 0] ?? `type ${tensor.elemType ?? 0}`) : kind;
  const shape = tensor?.shape ? (tensor.shape.dim ?? []).map((d) => d.dimValue ?? (d.dimParam || null)) : null;
  return { name: info.name ?? '', elementType, shape, sparse: info.type?.value === 'sparseTensorType' };
}

function decodeText(src: WindowedSource, field: Field): string {
  return new TextDecoder().decode(src.exact(field.start, field.end - field.start));
}

/** A name for what the first bytes say the file is, when it is not ONNX. */
function lookalike(head: Uint8Array): string | undefined {
  const ascii = new TextDecoder('latin1').decode(head.subarray(0, 64));
  if (head[0] === 0xff && head[1] === 0xd8) return 'a JPEG image';
  if (ascii.startsWith('\x89PNG')) return 'a PNG image';
  if (ascii.startsWith('PK\x03\x04')) return 'a zip archive (a PyTorch .pt checkpoint is one: export it to ONNX first)';
  if (ascii.slice(4, 8) === 'TFL3') return 'a TensorFlow Lite model';
  if (ascii.startsWith('version https://git-lfs')) return 'a Git LFS pointer (run `git lfs pull`)';
  if (/^\s*<(!doctype|html|\?xml)/i.test(ascii)) return 'an HTML or XML page (a download that went wrong?)';
  if (/^\s*[{[]/.test(ascii)) return 'a JSON file';
  return undefined;
}

const MODEL_PARTS: Record<number, string> = {
  [MODEL.graph]: 'graph',
  [MODEL.opsetImport]: 'opset list',
  [MODEL.metadataProps]: 'metadata',
};

function truncated(src: WindowedSource, error: WalkError, part = MODEL_PARTS[error.field ?? 0]): OnnxInspectError {
  const inside = part ? ` inside its ${part}` : '';
  return new OnnxInspectError(
    `truncated ONNX model: the file ends after ${src.size} bytes${inside} (${error.message}); copy the file again`,
  );
}

function notOnnx(src: WindowedSource, detail: string): OnnxInspectError {
  const looksLike = lookalike(src.view(0, 64));
  return new OnnxInspectError(`not an ONNX model: ${looksLike ? `it looks like ${looksLike}` : detail}`);
}

/** Reads the model's description from any byte source (a file, a buffer). */
export function inspectOnnxSource(source: ByteSource): OnnxInspection {
  const src = new WindowedSource(source);
  if (src.size === 0) throw new OnnxInspectError('not an ONNX model: the file is empty');
  let irVersion: number | undefined;
  let producer = '';
  let graph: Field | undefined;
  const opsets: Record<string, number> = {};
  const metadata: Record<string, string> = {};
  try {
    walk(src, 0, src.size, (field) => {
      if (field.number === MODEL.irVersion && field.wireType === WIRE.varint) irVersion = field.value;
      else if (field.number === MODEL.producerName && field.wireType === WIRE.bytes) producer = decodeText(src, field);
      else if (field.number === MODEL.graph && field.wireType === WIRE.bytes) graph = field;
      else if (field.number === MODEL.opsetImport && field.wireType === WIRE.bytes) {
        const opset = OperatorSetId.toObject(OperatorSetId.decode(src.exact(field.start, field.end - field.start)), { longs: Number }) as {
          domain?: string;
          version?: number;
        };
        opsets[opset.domain ?? ''] = opset.version ?? 0;
      } else if (field.number === MODEL.metadataProps && field.wireType === WIRE.bytes) {
        const entry = StringStringEntry.decode(src.exact(field.start, field.end - field.start)) as unknown as {
          key: string;
          value: string;
        };
        metadata[entry.key] = entry.value;
      }
    });
  } catch (error) {
    // protobufjs throws plain Errors for bytes that do not decode as the message.
    if (!(error instanceof Error)) throw error;
    // A file that started as a model (its IR version read) and then ran out is truncated; anything else is not ONNX.
    if (error instanceof WalkError && error.kind === 'eof' && irVersion !== undefined) throw truncated(src, error);
    throw notOnnx(src, error.message);
  }
  if (irVersion === undefined || irVersion < 1 || irVersion > 100 || !graph) {
    throw notOnnx(
      src,
      irVersion === undefined ? 'it has no IR version' : !graph ? 'it has no graph' : `IR version ${irVersion} is not one`,
    );
  }
  return { irVersion, producer, opsets, metadata, ...readGraph(src, graph, irVersion) };
}

function readGraph(src: WindowedSource, graph: Field, irVersion: number): Pick<OnnxInspection, 'inputs' | 'outputs'> {
  const inputs: OnnxValueInfo[] = [];
  const outputs: OnnxValueInfo[] = [];
  const initializers = new Set<string>();
  // Before IR version 4 every initializer was also listed as a graph input; their names tell them apart.
  const listsInitializersAsInputs = irVersion < 4;
  try {
    walk(src, graph.start, graph.end, (field) => {
      if (field.wireType !== WIRE.bytes) return;
      if (field.number === GRAPH.input || field.number === GRAPH.output) {
        const { sparse: _sparse, ...info } = decodeValueInfo(src.exact(field.start, field.end - field.start));
        (field.number === GRAPH.input ? inputs : outputs).push(info);
      } else if (field.number === GRAPH.initializer && listsInitializersAsInputs) {
        walk(src, field.start, field.end, (tensorField) => {
          if (tensorField.number === TENSOR_NAME && tensorField.wireType === WIRE.bytes) initializers.add(decodeText(src, tensorField));
        });
      }
    });
  } catch (error) {
    if (error instanceof WalkError && error.kind === 'eof') throw truncated(src, error, 'graph');
    if (error instanceof Error) throw new OnnxInspectError(`corrupt ONNX model: its graph cannot be read (${error.message})`);
    throw error;
  }
  return { inputs: inputs.filter((i) => !initializers.has(i.name)), outputs };
}

/** The description of an ONNX model held in memory. */
export function inspectOnnxBytes(bytes: Uint8Array): OnnxInspection {
  return inspectOnnxSource({
    size: bytes.length,
    read: (position, length) => bytes.subarray(position, Math.min(bytes.length, position + length)),
  });
}

/**
 * The description of the ONNX model at `path`. Synchronous on purpose: a few hundred small positioned
 * reads (the 18 MB SSD wrapped into a YOLO layout: 1-2 ms once warm) cost less than as many promises,
 * and the model folder reader infers a manifest synchronously.
 */
export function inspectOnnxFile(path: string): OnnxInspection {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new OnnxInspectError(`cannot open the model file: ${(error as Error).message}`);
  }
  try {
    const { size } = fstatSync(fd);
    return inspectOnnxSource({
      size,
      read: (position, length) => {
        const buffer = new Uint8Array(Math.max(0, Math.min(length, size - position)));
        const read = readSync(fd, buffer, 0, buffer.length, position);
        return buffer.subarray(0, read);
      },
    });
  } finally {
    closeSync(fd);
  }
}
