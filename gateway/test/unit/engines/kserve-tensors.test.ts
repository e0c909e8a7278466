/**
 * Tensor data in its two forms, for every datatype: binary (little-endian elements, BYTES as 4-byte
 * little-endian lengths each followed by its bytes) and JSON (numbers, booleans, text; FP16 and BF16 as the
 * numbers their bit patterns hold), the checks on what is received and on what JSON cannot carry, and the
 * frame path's tensors to and from the protocol's.
 */
import { describe, expect, it } from 'vitest';
import { KserveError } from '../../../src/engines/kserve-error.ts';
import {
  decodeBinaryData,
  decodeBytesElements,
  decodeJsonData,
  encodeBinaryData,
  encodeBytesElements,
  encodeJsonData,
  fromInputTensor,
  toOutputTensor,
  type KserveTensor,
} from '../../../src/engines/kserve-tensors.ts';

const text = new TextEncoder();
const bytes = (s: string) => text.encode(s);

function errorOf(run: () => unknown): KserveError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(KserveError);
    return error as KserveError;
  }
  throw new Error('did not throw');
}

/** One tensor of every datatype, with values at the edges of its range. */
const EVERY_DATATYPE: KserveTensor[] = [
  { name: 'bool', datatype: 'BOOL', shape: [3], data: new Uint8Array([1, 0, 1]) },
  { name: 'u8', datatype: 'UINT8', shape: [3], data: new Uint8Array([0, 7, 255]) },
  { name: 'u16', datatype: 'UINT16', shape: [2], data: new Uint16Array([0, 65535]) },
  { name: 'u32', datatype: 'UINT32', shape: [2], data: new Uint32Array([1, 4294967295]) },
  { name: 'u64', datatype: 'UINT64', shape: [2], data: new BigUint64Array([0n, 2n ** 53n - 1n]) },
  { name: 'i8', datatype: 'INT8', shape: [2], data: new Int8Array([-128, 127]) },
  { name: 'i16', datatype: 'INT16', shape: [2], data: new Int16Array([-32768, 32767]) },
  { name: 'i32', datatype: 'INT32', shape: [2, 1], data: new Int32Array([-(2 ** 31), 2 ** 31 - 1]) },
  { name: 'i64', datatype: 'INT64', shape: [2], data: new BigInt64Array([-(2n ** 53n) + 1n, 42n]) },
  // 1.5, -2, the largest half (65504) and the smallest subnormal (2^-24)
  { name: 'f16', datatype: 'FP16', shape: [4], data: new Uint16Array([0x3e00, 0xc000, 0x7bff, 0x0001]) },
  // 1.5, -2, 0.1 as bfloat16 (0.10009765625)
  { name: 'bf16', datatype: 'BF16', shape: [3], data: new Uint16Array([0x3fc0, 0xc000, 0x3dcd]) },
  { name: 'f32', datatype: 'FP32', shape: [1, 3], data: new Float32Array([0.1, -3.4e38, 1e-45]) },
  { name: 'f64', datatype: 'FP64', shape: [2], data: new Float64Array([Math.PI, -Number.MAX_VALUE]) },
  { name: 'bytes', datatype: 'BYTES', shape: [3], data: [bytes('héllo'), new Uint8Array(0), bytes('{"a": "b"}')] },
];

describe('tensor data, binary', () => {
  it('decodes as it was encoded, every datatype', () => {
    for (const tensor of EVERY_DATATYPE) {
      const wire = encodeBinaryData(tensor, 'output');
      expect(decodeBinaryData(tensor, wire, 'output'), tensor.datatype).toEqual(tensor.data);
    }
  });

  it("is the typed array's own memory, not a copy, on this little-endian host", () => {
    const data = new Float32Array([9, 1, 2, 9]).subarray(1, 3);
    const wire = encodeBinaryData({ name: 'x', datatype: 'FP32', shape: [2], data }, 'input');
    expect(wire.buffer).toBe(data.buffer);
    expect([wire.byteOffset, wire.byteLength]).toEqual([4, 8]);
  });

  it('copies unaligned data out of a Node Buffer, whose slice is a view of a shared pool, not a copy', () => {
    const floats = new Uint8Array(new Float32Array([1.5, -2]).buffer);
    const pooled = Buffer.from([0, ...floats]);
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    const data = decodeBinaryData({ name: 'x', datatype: 'FP32', shape: [2] }, pooled.subarray(1), 'output');
    expect(data).toEqual(new Float32Array([1.5, -2]));
  });

  it('says which tensor holds the wrong number of bytes', () => {
    expect(() => decodeBinaryData({ name: 'boxes', datatype: 'FP32', shape: [2, 4] }, new Uint8Array(30), 'output')).toThrow(
      /output boxes: 30 bytes of FP32 for 8 elements \(expected 32\)/,
    );
  });
});

describe('tensor data, JSON', () => {
  it('decodes as it was encoded, every datatype, through JSON text', () => {
    for (const tensor of EVERY_DATATYPE) {
      const values = JSON.parse(JSON.stringify(encodeJsonData(tensor, 'output'))) as unknown[];
      expect(decodeJsonData(tensor, values, 'output'), tensor.datatype).toEqual(tensor.data);
    }
  });

  it('writes BOOL as booleans, BYTES as text, FP16 and BF16 as the numbers they hold', () => {
    const json = (name: string) =>
      encodeJsonData(
        EVERY_DATATYPE.find((t) => t.name === name)!,
        'output',
      );
    expect(json('bool')).toEqual([true, false, true]);
    expect(json('bytes')).toEqual(['héllo', '', '{"a": "b"}']);
    expect(json('f16')).toEqual([1.5, -2, 65504, 2 ** -24]);
    expect(json('bf16')).toEqual([1.5, -2, 0.10009765625]);
    expect(json('u64')).toEqual([0, 2 ** 53 - 1]);
  });

  it('reads nested arrays row-major, numbers into FP16 and BF16 rounded to nearest, 64-bit integers from text exactly', () => {
    const f16 = decodeJsonData(
      { name: 'h', datatype: 'FP16', shape: [2, 2] },
      [
        [0.1, 1],
        [65520, -0],
      ],
      'input',
    );
    // 0.1 -> 0x2e66; 65520 is past the largest half: infinity; -0 keeps its sign.
    expect([...(f16 as Uint16Array)]).toEqual([0x2e66, 0x3c00, 0x7c00, 0x8000]);
    const bf16 = decodeJsonData({ name: 'b', datatype: 'BF16', shape: [3] }, [0.1, 1 + 2 ** -8, NaN], 'input');
    // 1 + 2^-8 lies halfway between two bfloat16s: ties go to the even one, 1.
    expect([...(bf16 as Uint16Array)]).toEqual([0x3dcd, 0x3f80, 0x7fc0]);
    expect(decodeJsonData({ name: 'n', datatype: 'INT64', shape: [1] }, ['9007199254740993'], 'input')).toEqual(
      new BigInt64Array([9007199254740993n]),
    );
    expect(decodeJsonData({ name: 'f', datatype: 'BOOL', shape: [2] }, [1, 0], 'input')).toEqual(new Uint8Array([1, 0]));
  });

  it('refuses values that are not of the datatype, or do not fit it, saying which tensor', () => {
    const refused = (datatype: KserveTensor['datatype'], value: unknown) => () =>
      decodeJsonData({ name: 'v', datatype, shape: [1] }, [value], 'input');
    expect(refused('INT32', 1.5)).toThrow(/input v: JSON value 1.5 is not a INT32/);
    expect(refused('UINT8', 256)).toThrow(/JSON value 256 is not a UINT8/);
    expect(refused('INT8', -129)).toThrow(/is not a INT8/);
    expect(refused('UINT64', -1)).toThrow(/is not a UINT64/);
    expect(refused('INT64', '12x')).toThrow(/JSON value "12x" is not a INT64/);
    expect(refused('INT64', 0.5)).toThrow(/is not a INT64/);
    expect(refused('FP32', '1')).toThrow(/is not a FP32/);
    expect(refused('FP32', null)).toThrow(/JSON value null is not a FP32/);
    expect(refused('BOOL', 2)).toThrow(/is not a BOOL/);
    expect(refused('BYTES', 7)).toThrow(/JSON value 7 is not a string/);
    expect(refused('FP32', 1)).not.toThrow();
    const long = errorOf(refused('INT32', 'x'.repeat(10_000)));
    expect(long.kind).toBe('protocol');
    // A client's long value is quoted, not echoed.
    expect(long.message.length).toBeLessThan(100);
  });

  it('refuses to write what JSON would carry wrong: infinities, 64-bit integers past 2^53, BYTES that are not UTF-8', () => {
    const tensor = (datatype: KserveTensor['datatype'], data: KserveTensor['data']): KserveTensor => ({
      name: 't',
      datatype,
      shape: [1],
      data,
    });
    expect(() => encodeJsonData(tensor('FP64', new Float64Array([Infinity])), 'output')).toThrow(
      /output t: element 0 is Infinity, which JSON cannot carry; send it binary/,
    );
    expect(() => encodeJsonData(tensor('FP16', new Uint16Array([0x7e00])), 'output')).toThrow(/element 0 is NaN/);
    expect(() => encodeJsonData(tensor('INT64', new BigInt64Array([2n ** 60n])), 'output')).toThrow(/element 0 is 1152921504606846976/);
    expect(() => encodeJsonData(tensor('BYTES', [new Uint8Array([0xff])]), 'output')).toThrow(/element 0 is not UTF-8 text/);
    expect(errorOf(() => encodeJsonData(tensor('FP32', new Float32Array([-Infinity])), 'output')).kind).toBe('usage');
  });
});

describe('BYTES elements', () => {
  it('are a 4-byte little-endian length, then the bytes, per element', () => {
    const long = new Uint8Array(300).fill(7);
    const wire = encodeBytesElements([bytes('héllo'), new Uint8Array(0), long]);
    expect([...wire.subarray(0, 10)]).toEqual([6, 0, 0, 0, 0x68, 0xc3, 0xa9, 0x6c, 0x6c, 0x6f]);
    expect([...wire.subarray(10, 14)]).toEqual([0, 0, 0, 0]);
    // 300 = 0x012c: the low byte first.
    expect([...wire.subarray(14, 18)]).toEqual([0x2c, 0x01, 0, 0]);
    const decoded = decodeBytesElements(wire, 3);
    expect(new TextDecoder().decode(decoded[0])).toBe('héllo');
    expect(decoded[1]!.length).toBe(0);
    expect(decoded[2]).toEqual(long);
  });

  it('refuse data cut short, lengths past the end and bytes left over', () => {
    const wire = encodeBytesElements([bytes('abc'), bytes('de')]);
    expect(() => decodeBytesElements(wire.subarray(0, 9), 2)).toThrow(/ends inside the length of element 1/);
    expect(() => decodeBytesElements(wire.subarray(0, 12), 2)).toThrow(/element 1 of 2 claims 2 bytes/);
    expect(() => decodeBytesElements(wire, 1)).toThrow(/6 bytes after its 1 elements/);
  });
});

describe('tensor conversions', () => {
  it('names element types as onnxruntime does, so the output decoders read remote outputs unchanged', () => {
    const data = new Float32Array(4);
    expect(toOutputTensor({ name: 'scores', datatype: 'FP32', shape: [1, 4], data })).toEqual({ type: 'float32', data, dims: [1, 4] });
    expect(toOutputTensor({ name: 'n', datatype: 'INT64', shape: [1], data: new BigInt64Array(1) }).type).toBe('int64');
    expect(toOutputTensor({ name: 'l', datatype: 'BYTES', shape: [1], data: [bytes('a')] }).type).toBe('bytes');
  });

  it('turns a model input tensor into the protocol tensor without copying it', () => {
    const data = new Uint8Array(12);
    const tensor = fromInputTensor('image', { dtype: 'uint8', dims: [1, 2, 2, 3], data });
    expect(tensor).toEqual({ name: 'image', datatype: 'UINT8', shape: [1, 2, 2, 3], data });
    expect(tensor.data).toBe(data);
  });
});
