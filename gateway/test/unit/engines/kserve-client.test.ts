/**
 * The client as a transport, against a real HTTP server on loopback that speaks through the same codec:
 * what goes out (path, headers, the encoded request), what comes back (outputs as the frame path reads
 * them), readiness, and every failure typed: the engine's HTTP error in its own words, an answer that does
 * not decode, no answer within the timeout, the caller giving up, nothing listening. The same client
 * against a real Triton is test/integration/kserve-client.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KserveClient, KserveError } from '../../../src/engines/kserve-client.ts';
import {
  decodeInferRequest,
  encodeInferResponse,
  INFERENCE_HEADER_CONTENT_LENGTH,
  messageHeaders,
  readHeaderLength,
  type InferRequest,
} from '../../../src/engines/kserve-codec.ts';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

type Handler = (request: Received, response: ServerResponse) => void;

let server: Server;
let url: string;
let handler: Handler;
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method!, url: request.url!, headers: request.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      handler(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  received.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function decodedRequest(entry: Received): InferRequest {
  const length = entry.headers[INFERENCE_HEADER_CONTENT_LENGTH];
  return decodeInferRequest(entry.body, readHeaderLength(typeof length === 'string' ? length : undefined));
}

/** Answers like an engine: scores binary, labels as JSON, the request's id echoed. */
const engine: Handler = (request, response) => {
  const decoded = decodedRequest(request);
  const answer = encodeInferResponse({
    modelName: 'ssd',
    ...(decoded.id === undefined ? {} : { id: decoded.id }),
    outputs: [
      { name: 'scores', datatype: 'FP32', shape: [1, 2], data: new Float32Array([0.25, 0.75]), binary: true },
      { name: 'labels', datatype: 'BYTES', shape: [1], data: [new TextEncoder().encode('dog')], binary: false },
    ],
  });
  response.writeHead(200, messageHeaders(answer)).end(answer.body);
};

function answer(status: number, body = ''): Handler {
  return (_request, response) => response.writeHead(status).end(body);
}

async function failure(promise: Promise<unknown>): Promise<KserveError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KserveError);
  return error as KserveError;
}

describe('inference', () => {
  it('sends the encoded tensors with the extension header and without compression, and reads the outputs back', async () => {
    handler = engine;
    const client = new KserveClient({ url: `${url}/`, headers: { authorization: 'Bearer t' } });
    const image = new Float32Array([0.5, -1, 2, 3, 4, 5]);
    const outputs = await client.infer('ssd', { image: { dtype: 'float32', dims: [1, 2, 3], data: image } });

    const [request] = received;
    expect(request).toMatchObject({ method: 'POST', url: '/v2/models/ssd/infer' });
    expect(request!.headers).toMatchObject({
      'content-type': 'application/octet-stream',
      'accept-encoding': 'identity',
      authorization: 'Bearer t',
    });
    const sent = decodedRequest(request!);
    expect(sent.inputs).toMatchObject([{ name: 'image', datatype: 'FP32', shape: [1, 2, 3], binary: true }]);
    expect(sent.inputs[0]!.data).toEqual(image);
    expect(sent.binaryOutputs).toBe(true);

    expect(outputs.scores).toEqual({ type: 'float32', dims: [1, 2], data: new Float32Array([0.25, 0.75]) });
    expect(outputs.labels!.type).toBe('bytes');
    expect(new TextDecoder().decode((outputs.labels!.data as Uint8Array[])[0])).toBe('dog');
  });

  it('names the version, the outputs wanted and the request id, and escapes the model name', async () => {
    handler = engine;
    const client = new KserveClient({ url });
    const response = await client.inferTensors('a/b', [{ name: 'x', datatype: 'INT32', shape: [1], data: new Int32Array([3]) }], {
      version: '2',
      outputs: ['scores'],
      id: 'frame-9',
    });
    expect(received[0]!.url).toBe('/v2/models/a%2Fb/versions/2/infer');
    expect(decodedRequest(received[0]!)).toMatchObject({ id: 'frame-9', outputs: [{ name: 'scores', binary: true }] });
    expect(response).toMatchObject({ modelName: 'ssd', id: 'frame-9' });
  });

  it('is the frame path’s model runner', async () => {
    handler = engine;
    const run = new KserveClient({ url }).runner('ssd');
    const outputs = await run({ image: { dtype: 'uint8', dims: [1, 1, 1, 3], data: new Uint8Array([1, 2, 3]) } });
    expect(Object.keys(outputs)).toEqual(['scores', 'labels']);
    expect(decodedRequest(received[0]!).inputs[0]).toMatchObject({ datatype: 'UINT8', data: new Uint8Array([1, 2, 3]) });
  });
});

describe('readiness and metadata', () => {
  it('is ready on 200 and not on anything else', async () => {
    const client = new KserveClient({ url });
    handler = answer(200);
    expect([await client.serverLive(), await client.serverReady(), await client.modelReady('ssd')]).toEqual([true, true, true]);
    expect(received.map((r) => r.url)).toEqual(['/v2/health/live', '/v2/health/ready', '/v2/models/ssd/ready']);
    handler = answer(503);
    expect(await client.serverReady()).toBe(false);
    handler = answer(400, '{"error": "unknown model"}');
    expect(await client.modelReady('nope', { version: '3' })).toBe(false);
    expect(received.at(-1)!.url).toBe('/v2/models/nope/versions/3/ready');
  });

  it('reads model metadata, and calls an answer that is none a protocol failure', async () => {
    const client = new KserveClient({ url });
    const metadata = { name: 'ssd', platform: 'onnxruntime_onnx', inputs: [], outputs: [{ name: 's', datatype: 'FP32', shape: [-1] }] };
    handler = answer(200, JSON.stringify(metadata));
    expect(await client.modelMetadata('ssd')).toEqual(metadata);
    handler = answer(200, '<html>');
    const garbled = await failure(client.modelMetadata('ssd'));
    expect(garbled.kind).toBe('protocol');
    expect(garbled.message).toMatch(new RegExp(`GET ${url}/v2/models/ssd answered with not model metadata`));
  });
});

describe('failures', () => {
  const tensor = { name: 'x', datatype: 'FP32' as const, shape: [1], data: new Float32Array(1) };

  it("passes on the engine's HTTP error in its own words", async () => {
    handler = answer(400, '{"error": "unexpected shape for input \'x\'"}');
    const refused = await failure(new KserveClient({ url }).inferTensors('ssd', [tensor]));
    expect(refused).toMatchObject({ kind: 'http', status: 400, details: { engineMessage: "unexpected shape for input 'x'" } });
    expect(refused.message).toBe(`POST ${url}/v2/models/ssd/infer answered HTTP 400: unexpected shape for input 'x'`);
  });

  it('calls an infer answer that does not decode a protocol failure', async () => {
    handler = (_request, response) => response.writeHead(200, { [INFERENCE_HEADER_CONTENT_LENGTH]: 'twelve' }).end('{}');
    const garbled = await failure(new KserveClient({ url }).inferTensors('ssd', [tensor]));
    expect(garbled.kind).toBe('protocol');
    expect(garbled.message).toMatch(/answered with an infer response that does not decode: .*"twelve" is not a byte count/);
  });

  it('gives up when no answer comes within the timeout, and when the caller does', async () => {
    handler = () => undefined; // never answers
    const client = new KserveClient({ url, timeoutMs: 50 });
    const slow = await failure(client.inferTensors('ssd', [tensor]));
    expect(slow).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/no answer within 50 ms/) });
    const patient = new KserveClient({ url, timeoutMs: 60_000 });
    const controller = new AbortController();
    const before = received.length;
    const pending = patient.serverReady({ signal: controller.signal });
    while (received.length === before) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect((await failure(pending)).kind).toBe('aborted');
    expect((await failure(patient.serverReady({ signal: AbortSignal.abort() }))).kind).toBe('aborted');
  });

  it('says the connection was refused when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failure(new KserveClient({ url: `http://127.0.0.1:${port}` }).serverLive());
    expect(refused).toMatchObject({ kind: 'connection', message: expect.stringContaining('connection refused') });
  });
});
