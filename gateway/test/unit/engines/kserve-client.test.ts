/**
 * The binary tensor data extension byte for byte, without an engine: request bodies as Triton reads them
 * (JSON header, then each input's little-endian bytes), response bodies as Triton writes them, BYTES
 * elements with their 4-byte little-endian lengths, and the checks that refuse what does not add up.
 * The same client against a real Triton is test/integration/kserve-client.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeBytesElements,
  decodeInferResponse,
  encodeBytesElements,
  encodeInferRequest,
  fromInputTensor,
  isEngineFailure,
  KserveClient,
  KserveError,
  toOutputTensor,
} from '../../../src/engines/kserve-client.ts';

const text = new TextEncoder();
const bytes = (s: string) => text.encode(s);

function headerOf(body: Uint8Array, headerLength: number): unknown {
  return JSON.parse(new TextDecoder().decode(body.subarray(0, headerLength)));
}

/** A response body as an engine sends it: JSON header, then each binary output's bytes in order. */
function responseBody(header: object, ...binary: Uint8Array[]): { body: Uint8Array; headerLength: number } {
  const json = bytes(JSON.stringify(header));
  const body = new Uint8Array(json.length + binary.reduce((n, b) => n + b.length, 0));
  body.set(json);
  let offset = json.length;
  for (const part of binary) {
    body.set(part, offset);
    offset += part.length;
  }
  return { body, headerLength: json.length };
}

function littleEndianFloats(values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return out;
}

describe('encodeInferRequest', () => {
  it('writes the JSON header, then each input as little-endian bytes, sized in binary_data_size', () => {
    const image = new Float32Array([0.5, -1, 3.25, 1e-3, 7, 8]);
    const mask = new Uint8Array([1, 0, 255]);
    const { body, headerLength } = encodeInferRequest([
      { name: 'image', datatype: 'FP32', shape: [1, 2, 3], data: image },
      { name: 'mask', datatype: 'UINT8', shape: [3], data: mask },
    ]);
    expect(headerOf(body, headerLength)).toEqual({
      inputs: [
        { name: 'image', shape: [1, 2, 3], datatype: 'FP32', parameters: { binary_data_size: 24 } },
        { name: 'mask', shape: [3], datatype: 'UINT8', parameters: { binary_data_size: 3 } },
      ],
      parameters: { binary_data_output: true },
    });
    expect(body.length).toBe(headerLength + 24 + 3);
    const view = new DataView(body.buffer, body.byteOffset + headerLength);
    expect([0, 1, 2, 3, 4, 5].map((i) => view.getFloat32(i * 4, true))).toEqual([...image]);
    expect([...body.subarray(headerLength + 24)]).toEqual([1, 0, 255]);
  });

  it('asks for named outputs as binary, and carries a request id', () => {
    const { body, headerLength } = encodeInferRequest([{ name: 'x', datatype: 'INT32', shape: [1], data: new Int32Array([-2]) }], {
      outputs: ['scores', 'boxes'],
      id: 'frame-7',
    });
    expect(headerOf(body, headerLength)).toMatchObject({
      id: 'frame-7',
      outputs: [
        { name: 'scores', parameters: { binary_data: true } },
        { name: 'boxes', parameters: { binary_data: true } },
      ],
    });
    expect(new DataView(body.buffer, body.byteOffset + headerLength).getInt32(0, true)).toBe(-2);
  });

  it('sends only the view of a typed array that lives inside a larger buffer', () => {
    const backing = new Float32Array([9, 9, 1, 2, 9]);
    const { body, headerLength } = encodeInferRequest([{ name: 'x', datatype: 'FP32', shape: [2], data: backing.subarray(2, 4) }]);
    expect(body.length - headerLength).toBe(8);
    const view = new DataView(body.buffer, body.byteOffset + headerLength);
    expect([view.getFloat32(0, true), view.getFloat32(4, true)]).toEqual([1, 2]);
  });

  it('encodes BYTES inputs as length-prefixed elements', () => {
    const { body, headerLength } = encodeInferRequest([{ name: 'image', datatype: 'BYTES', shape: [2], data: [bytes('ab'), bytes('')] }]);
    expect(headerOf(body, headerLength)).toMatchObject({ inputs: [{ parameters: { binary_data_size: 10 } }] });
    expect([...body.subarray(headerLength)]).toEqual([2, 0, 0, 0, 97, 98, 0, 0, 0, 0]);
  });

  it('refuses data that does not fill the shape, or elements of the wrong size', () => {
    const wrongCount = () => encodeInferRequest([{ name: 'x', datatype: 'FP32', shape: [1, 3], data: new Float32Array(2) }]);
    expect(wrongCount).toThrow(/shape \[1,3\] holds 3 elements, data has 2/);
    const wrongType = () => encodeInferRequest([{ name: 'x', datatype: 'FP32', shape: [2], data: new Float64Array(2) }]);
    expect(wrongType).toThrow(/FP32 needs 4-byte elements, got Float64Array/);
    const bytesCount = () => encodeInferRequest([{ name: 'x', datatype: 'BYTES', shape: [3], data: [bytes('a')] }]);
    expect(bytesCount).toThrow(KserveError);
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

describe('decodeInferResponse', () => {
  it('reads binary outputs in order after the JSON header', () => {
    const scores = littleEndianFloats([0.25, 0.75, 1.5, -2]);
    const classes = new Uint8Array(new Int32Array([3, -1]).buffer);
    const { body, headerLength } = responseBody(
      {
        model_name: 'm',
        model_version: '1',
        outputs: [
          { name: 'scores', datatype: 'FP32', shape: [1, 2, 2], parameters: { binary_data_size: 16 } },
          { name: 'classes', datatype: 'INT32', shape: [2], parameters: { binary_data_size: 8 } },
        ],
      },
      scores,
      classes,
    );
    const response = decodeInferResponse(body, headerLength);
    expect(response).toMatchObject({ modelName: 'm', modelVersion: '1' });
    const [s, c] = response.outputs;
    expect(s).toMatchObject({ name: 'scores', datatype: 'FP32', shape: [1, 2, 2] });
    expect(s!.data).toBeInstanceOf(Float32Array);
    expect([...(s!.data as Float32Array)]).toEqual([0.25, 0.75, 1.5, -2]);
    expect([...(c!.data as Int32Array)]).toEqual([3, -1]);
  });

  it('views the body where the data is aligned and copies where it is not', () => {
    const header = (pad: string) => ({
      model_name: `m${pad}`,
      outputs: [{ name: 'x', datatype: 'FP32', shape: [2], parameters: { binary_data_size: 8 } }],
    });
    // Pads the header to a length that is, then is not, a multiple of 4.
    const aligned = [0, 1, 2, 3]
      .map((n) => responseBody(header('_'.repeat(n)), littleEndianFloats([1, 2])))
      .find((r) => r.headerLength % 4 === 0)!;
    const unaligned = [0, 1, 2, 3]
      .map((n) => responseBody(header('_'.repeat(n)), littleEndianFloats([1, 2])))
      .find((r) => r.headerLength % 4 !== 0)!;
    const view = decodeInferResponse(aligned.body, aligned.headerLength).outputs[0]!.data as Float32Array;
    const copy = decodeInferResponse(unaligned.body, unaligned.headerLength).outputs[0]!.data as Float32Array;
    expect([...view]).toEqual([1, 2]);
    expect([...copy]).toEqual([1, 2]);
    expect(view.buffer).toBe(aligned.body.buffer);
    expect(copy.buffer).not.toBe(unaligned.body.buffer);
  });

  it('reads 64-bit integers, booleans and BYTES', () => {
    const ids = new Uint8Array(new BigInt64Array([1n, -(2n ** 40n)]).buffer);
    const labels = encodeBytesElements([bytes('dog'), bytes('bicycle')]);
    const { body, headerLength } = responseBody(
      {
        model_name: 'm',
        outputs: [
          { name: 'ids', datatype: 'INT64', shape: [2], parameters: { binary_data_size: 16 } },
          { name: 'ok', datatype: 'BOOL', shape: [3], parameters: { binary_data_size: 3 } },
          { name: 'labels', datatype: 'BYTES', shape: [2], parameters: { binary_data_size: labels.length } },
        ],
      },
      ids,
      new Uint8Array([1, 0, 1]),
      labels,
    );
    const [i, ok, l] = decodeInferResponse(body, headerLength).outputs;
    expect([...(i!.data as BigInt64Array)]).toEqual([1n, -(2n ** 40n)]);
    expect([...(ok!.data as Uint8Array)]).toEqual([1, 0, 1]);
    expect((l!.data as Uint8Array[]).map((e) => new TextDecoder().decode(e))).toEqual(['dog', 'bicycle']);
  });

  it('reads outputs an engine sent as JSON, beside binary ones, and a body that is JSON alone', () => {
    const mixed = responseBody(
      {
        model_name: 'm',
        outputs: [
          { name: 'json', datatype: 'FP32', shape: [2, 2], data: [1, 2, 3.5, 4] },
          { name: 'bin', datatype: 'UINT8', shape: [2], parameters: { binary_data_size: 2 } },
          { name: 'labels', datatype: 'BYTES', shape: [1], data: ['cat'] },
          { name: 'big', datatype: 'INT64', shape: [1], data: [5] },
          { name: 'flags', datatype: 'BOOL', shape: [2], data: [true, false] },
        ],
      },
      new Uint8Array([9, 8]),
    );
    const [json, bin, labels, big, flags] = decodeInferResponse(mixed.body, mixed.headerLength).outputs;
    expect(json!.data).toEqual(new Float32Array([1, 2, 3.5, 4]));
    expect(bin!.data).toEqual(new Uint8Array([9, 8]));
    expect(new TextDecoder().decode((labels!.data as Uint8Array[])[0])).toBe('cat');
    expect(big!.data).toEqual(new BigInt64Array([5n]));
    expect(flags!.data).toEqual(new Uint8Array([1, 0]));

    const plain = bytes(JSON.stringify({ model_name: 'm', outputs: [{ name: 'y', datatype: 'INT16', shape: [1], data: [-3] }] }));
    expect(decodeInferResponse(plain).outputs[0]!.data).toEqual(new Int16Array([-3]));
  });

  it('refuses bodies that do not add up', () => {
    const output = { name: 'x', datatype: 'FP32', shape: [2], parameters: { binary_data_size: 8 } };
    const short = responseBody({ model_name: 'm', outputs: [output] }, littleEndianFloats([1]));
    expect(() => decodeInferResponse(short.body, short.headerLength)).toThrow(/8 bytes of binary data, 4 left/);
    const extra = responseBody({ model_name: 'm', outputs: [output] }, littleEndianFloats([1, 2, 3]));
    expect(() => decodeInferResponse(extra.body, extra.headerLength)).toThrow(/4 bytes after the last output/);
    const wrongSize = responseBody({ model_name: 'm', outputs: [{ ...output, shape: [3] }] }, littleEndianFloats([1, 2]));
    expect(() => decodeInferResponse(wrongSize.body, wrongSize.headerLength)).toThrow(/8 bytes of FP32 for 3 elements/);
    const noData = responseBody({ model_name: 'm', outputs: [{ name: 'x', datatype: 'FP32', shape: [1] }] });
    expect(() => decodeInferResponse(noData.body, noData.headerLength)).toThrow(/neither binary data nor JSON data/);
    const unknownType = responseBody({ model_name: 'm', outputs: [{ ...output, datatype: 'FP8' }] }, littleEndianFloats([1, 2]));
    expect(() => decodeInferResponse(unknownType.body, unknownType.headerLength)).toThrow(/not an infer response/);
    expect(() => decodeInferResponse(short.body, short.body.length + 1)).toThrow(/does not fit a body/);
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

describe('inferBatch', () => {
  // Refused before anything is sent: no engine needed (nothing listens on the discard port).
  const client = new KserveClient({ url: 'http://127.0.0.1:9' });
  const frame = (dims: number[], dtype: 'float32' | 'uint8' = 'float32') => ({
    image: {
      dtype,
      dims,
      data: dtype === 'float32' ? new Float32Array(dims.reduce((a, b) => a * b, 1)) : new Uint8Array(dims.reduce((a, b) => a * b, 1)),
    },
  });

  it('refuses frames whose tensors cannot be stacked along dim 0', async () => {
    await expect(client.inferBatch('m', [])).rejects.toMatchObject({ kind: 'usage', message: 'a batch needs at least one frame' });
    await expect(client.inferBatch('m', [frame([1, 2, 2, 3]), frame([1, 3, 2, 3])])).rejects.toMatchObject({
      kind: 'usage',
      message: expect.stringMatching(/frame 1: input image is float32 \[1,3,2,3\], frame 0's float32 \[1,2,2,3\]/),
    });
    await expect(client.inferBatch('m', [frame([1, 2]), frame([1, 2], 'uint8')])).rejects.toMatchObject({ kind: 'usage' });
    await expect(client.inferBatch('m', [frame([1, 2]), { other: frame([1, 2]).image }])).rejects.toThrow(/frame 1 has no input image/);
  });
});

describe('isEngineFailure', () => {
  it('counts the engine being unreachable, slow, failing or garbled, not a refused request or a caller giving up', () => {
    expect(isEngineFailure(new KserveError('connection', 'refused'))).toBe(true);
    expect(isEngineFailure(new KserveError('timeout', 'slow'))).toBe(true);
    expect(isEngineFailure(new KserveError('protocol', 'garbled'))).toBe(true);
    expect(isEngineFailure(new KserveError('http', 'down', { status: 503 }))).toBe(true);
    expect(isEngineFailure(new KserveError('http', 'bad shape', { status: 400 }))).toBe(false);
    expect(isEngineFailure(new KserveError('aborted', 'superseded'))).toBe(false);
    expect(isEngineFailure(new KserveError('usage', 'wrong dims'))).toBe(false);
    expect(isEngineFailure(new Error('anything else'))).toBe(false);
  });
});
