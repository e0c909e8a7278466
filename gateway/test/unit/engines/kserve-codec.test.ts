/**
 * The KServe v2 messages byte for byte, without an engine: request bodies as Triton reads them (JSON
 * header, then each input's little-endian bytes), response bodies as Triton writes them, both directions in
 * both forms (binary tensor data extension, JSON) and mixed, what a request asks for, and the checks that
 * refuse what does not add up. The client that sends them against a real Triton is
 * test/integration/kserve-client.test.ts; the gateway's v2 endpoint answering tritonclient is
 * test/integration/http/v2-routes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeErrorMessage,
  decodeInferRequest,
  decodeInferResponse,
  decodeModelMetadata,
  encodeInferRequest,
  encodeInferResponse,
  INFERENCE_HEADER_CONTENT_LENGTH,
  messageHeaders,
  readHeaderLength,
} from '../../../src/engines/kserve-codec.ts';
import { KserveError } from '../../../src/engines/kserve-error.ts';
import { encodeBytesElements, type KserveTensor } from '../../../src/engines/kserve-tensors.ts';

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

describe('infer requests, binary and JSON', () => {
  const image: KserveTensor = { name: 'image', datatype: 'FP32', shape: [2, 2], data: new Float32Array([0.5, -1, 3.25, 1e-3]) };
  const mask: KserveTensor = { name: 'mask', datatype: 'UINT8', shape: [3], data: new Uint8Array([1, 0, 255]) };
  const words: KserveTensor = { name: 'words', datatype: 'BYTES', shape: [1, 2], data: [bytes('héllo'), bytes('')] };

  it('decode as they were encoded, each input binary, in JSON, or both in one request', () => {
    for (const forms of [
      [true, true, true],
      [false, false, false],
      [true, false, true],
    ]) {
      const inputs = [image, mask, words].map((tensor, i) => ({ ...tensor, binary: forms[i]! }));
      const { body, headerLength, hasBinaryData } = encodeInferRequest(inputs, { id: 'r1' });
      expect(hasBinaryData).toBe(forms.includes(true));
      const decoded = decodeInferRequest(body, hasBinaryData ? headerLength : undefined);
      expect(decoded.id).toBe('r1');
      expect(decoded.inputs.map((t) => t.binary)).toEqual(forms);
      expect(decoded.inputs[0]).toMatchObject({ name: 'image', datatype: 'FP32', shape: [2, 2], data: image.data });
      expect(decoded.inputs[1]!.data).toEqual(mask.data);
      expect((decoded.inputs[2]!.data as Uint8Array[]).map((e) => new TextDecoder().decode(e))).toEqual(['héllo', '']);
    }
  });

  it('carries a JSON input as its values in the header, and then needs no Inference-Header-Content-Length', () => {
    const encoded = encodeInferRequest([{ ...mask, binary: false }], { binaryOutputs: false });
    expect(encoded.body.length).toBe(encoded.headerLength);
    expect(JSON.parse(new TextDecoder().decode(encoded.body))).toEqual({
      inputs: [{ name: 'mask', shape: [3], datatype: 'UINT8', data: [1, 0, 255] }],
      parameters: { binary_data_output: false },
    });
    expect(messageHeaders(encoded)).toEqual({ 'content-type': 'application/json' });
    expect(messageHeaders(encodeInferRequest([mask]))).toEqual({
      'content-type': 'application/octet-stream',
      [INFERENCE_HEADER_CONTENT_LENGTH]: String(encodeInferRequest([mask]).headerLength),
    });
  });

  it('reads the outputs asked for: each in its own form, else in the binary_data_output form, else JSON', () => {
    const request = (header: object) => decodeInferRequest(bytes(JSON.stringify({ inputs: [], ...header })));
    const asked = request({
      outputs: [{ name: 'boxes', parameters: { binary_data: true } }, { name: 'labels' }],
      parameters: { binary_data_output: false, threshold: 0.3 },
    });
    expect(asked).toMatchObject({
      outputs: [
        { name: 'boxes', binary: true },
        { name: 'labels', binary: false },
      ],
      binaryOutputs: false,
      parameters: { threshold: 0.3 },
    });
    expect(request({ outputs: [{ name: 'scores' }], parameters: { binary_data_output: true } }).outputs).toEqual([
      { name: 'scores', binary: true },
    ]);
    const plain = request({});
    expect(plain).toEqual({ inputs: [], binaryOutputs: false, parameters: {} });
    expect(plain.outputs).toBeUndefined();
    // As the client asks them: named outputs in the form said, the request's own parameters kept.
    const sent = encodeInferRequest([mask], { outputs: ['a', { name: 'b', binary: false }], parameters: { threshold: 0.5 } });
    expect(decodeInferRequest(sent.body, sent.headerLength)).toMatchObject({
      outputs: [
        { name: 'a', binary: true },
        { name: 'b', binary: false },
      ],
      binaryOutputs: true,
      parameters: { threshold: 0.5 },
    });
  });

  it('refuses requests that do not add up, saying which input', () => {
    const refusal = (body: Uint8Array, headerLength?: number) => {
      try {
        decodeInferRequest(body, headerLength);
      } catch (error) {
        expect(error).toBeInstanceOf(KserveError);
        expect((error as KserveError).kind).toBe('protocol');
        return (error as Error).message;
      }
      throw new Error('decoded');
    };
    expect(refusal(bytes('{"inputs": ['))).toMatch(/not an infer request: its header is not JSON/);
    expect(refusal(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatch(/its header is not JSON/);
    expect(refusal(bytes('{}'))).toMatch(/not an infer request: .*inputs/s);
    expect(refusal(bytes(JSON.stringify({ inputs: [{ name: 'x', datatype: 'FP32', shape: [-1], data: [] }] })))).toMatch(
      /not an infer request/,
    );
    const json = (input: object) => bytes(JSON.stringify({ inputs: [input] }));
    expect(refusal(json({ name: 'x', datatype: 'FP32', shape: [2], data: [1, 2, 3] }))).toMatch(/input x: 3 JSON values for 2 elements/);
    expect(refusal(json({ name: 'x', datatype: 'INT32', shape: [1], data: ['1'] }))).toMatch(/input x: JSON value "1" is not a INT32/);
    expect(refusal(json({ name: 'x', datatype: 'FP32', shape: [1] }))).toMatch(/input x has neither binary data nor JSON data/);
    const cut = responseBody(
      { inputs: [{ name: 'image', datatype: 'BYTES', shape: [1], parameters: { binary_data_size: 8 } }] },
      new Uint8Array([9, 0, 0, 0, 1, 2, 3, 4]),
    );
    expect(refusal(cut.body, cut.headerLength)).toMatch(/input image: BYTES element 0 of 1 claims 9 bytes/);
    expect(refusal(cut.body.subarray(0, cut.body.length - 1), cut.headerLength)).toMatch(/input image: 8 bytes of binary data, 7 left/);
    expect(refusal(cut.body, cut.body.length + 1)).toMatch(/does not fit a body/);
  });
});

describe('infer responses, binary and JSON', () => {
  const outputs: KserveTensor[] = [
    { name: 'boxes', datatype: 'FP32', shape: [2, 4], data: new Float32Array([1, 2, 3, 4, 5.5, 6, 7, 8]) },
    { name: 'classes', datatype: 'INT32', shape: [2], data: new Int32Array([17, -1]) },
    { name: 'labels', datatype: 'BYTES', shape: [2], data: [bytes('dog'), bytes('bicycle')] },
  ];

  it('decode as they were encoded, with the model, version and id, each output in the form asked', () => {
    for (const binary of [true, false]) {
      const encoded = encodeInferResponse({
        modelName: 'ssd',
        modelVersion: '1',
        id: 'x',
        outputs: outputs.map((o, i) => ({ ...o, binary: i === 1 ? !binary : binary })),
      });
      expect(encoded.hasBinaryData).toBe(true);
      const decoded = decodeInferResponse(encoded.body, encoded.headerLength);
      expect(decoded).toMatchObject({ modelName: 'ssd', modelVersion: '1', id: 'x' });
      expect(decoded.outputs.map((o) => [o.name, o.datatype, o.shape, o.binary])).toEqual([
        ['boxes', 'FP32', [2, 4], binary],
        ['classes', 'INT32', [2], !binary],
        ['labels', 'BYTES', [2], binary],
      ]);
      expect(decoded.outputs[0]!.data).toEqual(outputs[0]!.data);
      expect(decoded.outputs[1]!.data).toEqual(outputs[1]!.data);
      expect((decoded.outputs[2]!.data as Uint8Array[]).map((e) => new TextDecoder().decode(e))).toEqual(['dog', 'bicycle']);
    }
  });

  it('is JSON alone when no output is asked for binary, with labels as text', () => {
    const encoded = encodeInferResponse({ modelName: 'ssd', outputs: outputs.map((o) => ({ ...o, binary: false })) });
    expect(encoded.hasBinaryData).toBe(false);
    expect(messageHeaders(encoded)).toEqual({ 'content-type': 'application/json' });
    const header = JSON.parse(new TextDecoder().decode(encoded.body)) as { outputs: { data: unknown[] }[] };
    expect(header.outputs.map((o) => o.data)).toEqual([
      [1, 2, 3, 4, 5.5, 6, 7, 8],
      [17, -1],
      ['dog', 'bicycle'],
    ]);
    expect(decodeInferResponse(encoded.body).outputs[1]!.data).toEqual(new Int32Array([17, -1]));
  });

  it('refuses to send as JSON what JSON cannot carry, rather than send it wrong', () => {
    const nan = { name: 'scores', datatype: 'FP32' as const, shape: [2], data: new Float32Array([0.5, NaN]), binary: false };
    expect(() => encodeInferResponse({ modelName: 'm', outputs: [nan] })).toThrow(
      /output scores: element 1 is NaN, which JSON cannot carry/,
    );
    expect(encodeInferResponse({ modelName: 'm', outputs: [{ ...nan, binary: true }] }).hasBinaryData).toBe(true);
  });
});

describe('the HTTP beside the body', () => {
  it('reads Inference-Header-Content-Length as a byte count, or refuses it', () => {
    expect(readHeaderLength(null)).toBeUndefined();
    expect(readHeaderLength(undefined)).toBeUndefined();
    expect(readHeaderLength('128')).toBe(128);
    expect(() => readHeaderLength('12abc')).toThrow(/inference-header-content-length "12abc" is not a byte count/);
    expect(() => readHeaderLength('-1')).toThrow(KserveError);
    expect(() => readHeaderLength('')).toThrow(KserveError);
  });

  it('reads model metadata, and says when an answer is none', () => {
    const metadata = {
      name: 'ssd',
      versions: ['1'],
      platform: 'onnxruntime_onnx',
      inputs: [{ name: 'image', datatype: 'FP32', shape: [-1, 300, 300, 3] }],
      outputs: [{ name: 'scores', datatype: 'FP32', shape: [-1, 1917, 90] }],
    };
    expect(decodeModelMetadata(bytes(JSON.stringify(metadata)))).toEqual(metadata);
    expect(() => decodeModelMetadata(bytes('<html>'))).toThrow(/not model metadata: not JSON/);
    expect(() => decodeModelMetadata(bytes('{"name": "ssd"}'))).toThrow(/not model metadata: .*platform/s);
  });

  it("reads an error answer's own words, or the start of whatever was sent", () => {
    expect(decodeErrorMessage(bytes('{"error": "Request for unknown model"}'))).toBe('Request for unknown model');
    expect(decodeErrorMessage(bytes('  Bad Gateway\n'))).toBe('Bad Gateway');
    expect(decodeErrorMessage(new Uint8Array(0))).toBeUndefined();
    expect(decodeErrorMessage(bytes('x'.repeat(500)))).toBe(`${'x'.repeat(300)}…`);
  });
});
