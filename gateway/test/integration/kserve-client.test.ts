/**
 * The KServe v2 client against a real Triton (deploy/triton/serve.py, started through TritonProcess):
 * readiness and metadata, the shipped SSD run remotely on real photos' tensors and compared with a local
 * onnxruntime-node run of the same tensors, a batch of frames in one request, and every way the engine can
 * fail a caller: an HTTP error with Triton's own message, a port that accepts but never answers, nothing
 * listening, and the engine killed while requests are in flight; then the engine restarted on its ports.
 *
 * The first run makes the Triton venv (~150 MB from PyPI), hence the long beforeAll.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoPath } from '@sightline/shared/fixtures';
import {
  buildInputTensor,
  createDecoder,
  letterboxPlacement,
  manifestSchema,
  type InputTensor,
  type OutputTensor,
} from '@sightline/shared/model';
import { KserveClient, KserveError } from '../../src/engines/kserve-client.ts';
import { freePort, startTritonProcess, type TritonProcess } from '@sightline/harness/process';
import { inferBatch } from '../support/kserve-batch.ts';

const MODEL = 'ssdlite-mobilenetv2-coco';
const MODEL_DIR = fileURLToPath(new URL(`../../../models/${MODEL}/`, import.meta.url));
const manifest = manifestSchema.parse(JSON.parse(readFileSync(join(MODEL_DIR, 'manifest.json'), 'utf8')));
/** Two onnxruntime builds (Python's in Triton, Node's here) on the same graph and tensor: same maths, kernels may round differently. */
const TOLERANCE = 1e-4;
/** The machine is shared and small: generous, since these tests are about answers, not speed. */
const TIMEOUT_MS = 30_000;

let triton: TritonProcess;
let client: KserveClient;
let local: ort.InferenceSession;

beforeAll(async () => {
  triton = await startTritonProcess({ models: [MODEL], maxBatchSize: 4 });
  client = new KserveClient({ url: triton.url, timeoutMs: TIMEOUT_MS });
  local = await ort.InferenceSession.create(join(MODEL_DIR, manifest.file!), { intraOpNumThreads: 1 });
}, 20 * 60_000);

afterAll(async () => {
  await triton?.stop();
  await local?.release();
});

/** A fixture photo decoded by sharp and turned into the model's input by the shared tensor builder. */
async function photoTensor(name: string): Promise<InputTensor> {
  const { data, info } = await sharp(photoPath(name)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const rgb = { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
  return buildInputTensor(rgb, manifest.input, letterboxPlacement(info.width, info.height, manifest.input));
}

async function runLocally(tensor: InputTensor): Promise<Record<string, OutputTensor>> {
  const outputs = await local.run({ [manifest.input.name]: new ort.Tensor(tensor.dtype, tensor.data, tensor.dims) });
  return Object.fromEntries(Object.entries(outputs).map(([name, t]) => [name, { type: t.type, data: t.data, dims: t.dims }]));
}

function maxAbsDifference(a: OutputTensor, b: OutputTensor): number {
  const x = a.data as Float32Array;
  const y = b.data as Float32Array;
  expect(x.length).toBe(y.length);
  let max = 0;
  for (let i = 0; i < x.length; i++) max = Math.max(max, Math.abs(x[i]! - y[i]!));
  return max;
}

function expectSameOutputs(remote: Record<string, OutputTensor>, reference: Record<string, OutputTensor>): void {
  expect(Object.keys(remote).sort()).toEqual(Object.keys(reference).sort());
  for (const name of Object.keys(reference)) {
    expect(remote[name]!.type).toBe('float32');
    expect(remote[name]!.dims).toEqual(reference[name]!.dims);
    expect(maxAbsDifference(remote[name]!, reference[name]!)).toBeLessThan(TOLERANCE);
  }
}

/** What the shipped output decoder finds in the outputs: remote and local runs must agree on it too. */
const decode = createDecoder(manifest);
const labelsFound = (outputs: Record<string, OutputTensor>) =>
  decode(outputs, manifest.scoreThreshold)
    .map((c) => c.labelIndex)
    .sort((a, b) => a - b);

describe('readiness and metadata', () => {
  it('reports the server and the model ready, and an unknown model not ready', async () => {
    expect(await client.serverLive()).toBe(true);
    expect(await client.serverReady()).toBe(true);
    expect(await client.modelReady(MODEL)).toBe(true);
    expect(await client.modelReady('no-such-model')).toBe(false);
  });

  it("describes the model with the graph's names, datatypes and dims behind a batch dimension", async () => {
    const metadata = await client.modelMetadata(MODEL);
    expect(metadata.name).toBe(MODEL);
    expect(metadata.inputs).toEqual([{ name: 'image', datatype: 'FP32', shape: [-1, 300, 300, 3] }]);
    expect(metadata.outputs).toEqual([
      { name: 'scores', datatype: 'FP32', shape: [-1, 1917, 90] },
      { name: 'boxes', datatype: 'FP32', shape: [-1, 1917, 1, 4] },
    ]);
  });

  it("answers an unknown model's metadata with HTTP 404 and Triton's own words", async () => {
    const failure = client.modelMetadata('no-such-model');
    await expect(failure).rejects.toBeInstanceOf(KserveError);
    await expect(failure).rejects.toMatchObject({
      kind: 'http',
      status: 404,
      message: expect.stringContaining("'no-such-model' is not found"),
    });
  });
});

describe('inference', () => {
  it('runs a real photo as onnxruntime-node does here, and finds the same objects', async () => {
    const tensor = await photoTensor('dog.jpg');
    const remote = await client.infer(MODEL, { [manifest.input.name]: tensor });
    const reference = await runLocally(tensor);
    expectSameOutputs(remote, reference);
    expect(labelsFound(remote)).toEqual(labelsFound(reference));
    expect(labelsFound(remote).length).toBeGreaterThan(0);
  });

  it('runs three frames in one request and splits the outputs back per frame, in order', async () => {
    const photos = ['horses.jpg', 'kite.jpg', 'person.jpg'];
    const tensors = await Promise.all(photos.map(photoTensor));
    const frames = await inferBatch(
      client,
      MODEL,
      tensors.map((tensor) => ({ [manifest.input.name]: tensor })),
    );
    expect(frames).toHaveLength(3);
    for (const [i, tensor] of tensors.entries()) {
      expect(frames[i]!.scores!.dims).toEqual([1, 1917, 90]);
      expectSameOutputs(frames[i]!, await runLocally(tensor));
    }
  });

  it('serves as the frame path’s model runner', async () => {
    const run = client.runner(MODEL);
    const tensor = await photoTensor('giraffe.jpg');
    expectSameOutputs(await run({ [manifest.input.name]: tensor }), await runLocally(tensor));
  });

  it("refuses a tensor of the wrong shape with HTTP 400 and Triton's reason", async () => {
    const wrong = { dtype: 'float32' as const, dims: [1, 10, 10, 3], data: new Float32Array(300) };
    await expect(client.infer(MODEL, { image: wrong })).rejects.toMatchObject({
      kind: 'http',
      status: 400,
      message: expect.stringContaining("unexpected shape for input 'image'"),
    });
  });
});

describe('an engine that fails', () => {
  it('gives up on a port that accepts the connection but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const mute = new KserveClient({ url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeoutMs: 300 });
      const tensor = await photoTensor('dog.jpg');
      await expect(mute.infer(MODEL, { image: tensor })).rejects.toMatchObject({
        kind: 'timeout',
        message: expect.stringMatching(/no answer within 300 ms/),
      });
      await expect(mute.serverReady()).rejects.toMatchObject({ kind: 'timeout' });
      expect(sockets.size).toBeGreaterThan(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('says the connection was refused when nothing listens', async () => {
    const nobody = new KserveClient({ url: `http://127.0.0.1:${await freePort()}` });
    await expect(nobody.serverReady()).rejects.toMatchObject({
      kind: 'connection',
      message: expect.stringContaining('connection refused'),
    });
    await expect(nobody.infer(MODEL, { image: await photoTensor('dog.jpg') })).rejects.toMatchObject({ kind: 'connection' });
  });

  it('fails requests in flight with a connection error when the engine is killed, then recovers when it returns', async () => {
    const tensor = await photoTensor('dog.jpg');
    const frame = { [manifest.input.name]: tensor };
    // Four requests of four frames each fill Triton's one model instance (max batch 4) four times over: once
    // Triton counts one waiting, hundreds of milliseconds of work are still unanswered when the engine dies.
    let inFlight: Promise<unknown>[] = [];
    for (let attempt = 0; attempt < 20 && inFlight.length === 0; attempt++) {
      const wave = [1, 2, 3, 4].map(() => inferBatch(client, MODEL, [frame, frame, frame, frame]));
      // Settled results are collected below; nothing may reject unobserved meanwhile.
      for (const request of wave) request.catch(() => undefined);
      if (await pendingSeen(triton.metricsUrl, wave)) inFlight = wave;
      else await Promise.allSettled(wave);
    }
    expect(inFlight.length).toBeGreaterThan(0);
    await triton.kill();

    const outcomes = await Promise.allSettled(inFlight);
    const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as KserveError);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(KserveError);
      expect(failure.kind).toBe('connection');
    }
    await expect(client.serverReady()).rejects.toMatchObject({
      kind: 'connection',
      message: expect.stringContaining('connection refused'),
    });
    await expect(client.infer(MODEL, frame)).rejects.toMatchObject({ kind: 'connection' });

    await triton.start();
    expect(await client.modelReady(MODEL)).toBe(true);
    expectSameOutputs(await client.infer(MODEL, frame), await runLocally(tensor));
  });
});

/**
 * Polls Triton's metrics until it counts a request waiting for the model (true), or every request of the
 * wave has settled first (false).
 */
async function pendingSeen(metricsUrl: string, wave: Promise<unknown>[]): Promise<boolean> {
  let settled = false;
  void Promise.allSettled(wave).then(() => (settled = true));
  while (!settled) {
    const metrics = await (await fetch(metricsUrl)).text();
    const pending = /^nv_inference_pending_request_count\{[^}]*\}\s+(\d+)/m.exec(metrics);
    if (pending && Number(pending[1]) > 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}
