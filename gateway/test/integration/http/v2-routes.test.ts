/**
 * The gateway's KServe v2 endpoints driven by the stock client, tritonclient[http] from PyPI, unmodified
 * (test/support/python/tritonclient_probe.py): health, metadata, readiness, infer with the image sent
 * binary and as JSON, outputs binary and JSON, an unknown model; the detections are those POST /api/detect
 * gives for the same bytes. Then behind a token, as when the gateway is exposed. Then the gateway's own
 * KServe codec as the client: JSON both ways, and the requests it refuses, in KServe's error form.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { photoPath, readPhoto } from '@sightline/shared/fixtures';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { decodeInferResponse, encodeInferRequest, type EncodedMessage, type TensorToSend } from '../../../src/engines/kserve-codec.ts';
import type { RunningGateway } from '../../../src/gateway.ts';
import { ensurePythonEnv, TRITON_REQUIREMENTS, type PythonEnv } from '@sightline/harness/process';
import { startTestGateway } from '../../support/test-gateway.ts';

const run = promisify(execFile);
const PROBE = fileURLToPath(new URL('../../support/python/tritonclient_probe.py', import.meta.url));
const MODEL = 'ssdlite-mobilenetv2-coco';
const TOKEN = 'a-token-of-at-least-16-characters';

interface Inferred {
  boxes: number[][];
  scores: number[];
  classes: number[];
  labels: string[];
  boxesShape: number[];
  boxesDtype: string;
  classesDtype: string;
}

interface Probe {
  live: boolean;
  ready: boolean;
  serverMetadata: { name: string; extensions: string[] };
  modelReady: boolean;
  modelMetadata: { name: string; inputs: { name: string; datatype: string }[]; outputs: { name: string; datatype: string }[] };
  binary: Inferred;
  json: Inferred;
  unknownModel: string;
}

let python: PythonEnv;
let open: RunningGateway;
let guarded: RunningGateway;

async function probe(gateway: RunningGateway, token?: string): Promise<Probe> {
  const args = [PROBE, gateway.url, MODEL, photoPath('dog.jpg'), ...(token ? [token] : [])];
  const { stdout } = await run(python.python, args, { env: { ...process.env, ...python.env }, timeout: 60_000 });
  return JSON.parse(stdout) as Probe;
}

beforeAll(async () => {
  python = await ensurePythonEnv({ name: 'triton', requirements: TRITON_REQUIREMENTS });
  [open, guarded] = await Promise.all([
    startTestGateway({ workers: 1 }),
    startTestGateway({ workers: 1, host: '0.0.0.0', tls: 'off', token: TOKEN }),
  ]);
}, 20 * 60_000);
afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close()]);
});

describe('KServe v2 endpoints, driven by tritonclient[http]', () => {
  it("answers the stock client's every call, with the detections POST /api/detect gives", async () => {
    const result = await probe(open);
    expect(result).toMatchObject({ live: true, ready: true, modelReady: true });
    expect(result.serverMetadata).toMatchObject({ name: 'sightline', extensions: ['binary_tensor_data'] });
    expect(result.modelMetadata.inputs).toEqual([{ name: 'image', datatype: 'BYTES', shape: [1] }]);
    expect(result.modelMetadata.outputs.map((o) => `${o.name}:${o.datatype}`)).toEqual([
      'boxes:FP32',
      'scores:FP32',
      'classes:INT32',
      'labels:BYTES',
    ]);
    expect(result.unknownModel).toMatch(/unknown_model: unknown model "no-such-model"/);

    const api = (await (
      await fetch(`${open.url}/api/detect?model=${MODEL}`, {
        method: 'POST',
        body: readPhoto('dog.jpg'),
        headers: { 'content-type': 'image/jpeg' },
      })
    ).json()) as DetectionsMessage;
    for (const way of ['binary', 'json'] as const) {
      const got = result[way];
      expect(got.labels, way).toEqual(api.detections.map((d) => d.label));
      expect(got.classes, way).toEqual(api.detections.map((d) => d.classId));
      expect(got.boxesShape, way).toEqual([api.detections.length, 4]);
      expect([got.boxesDtype, got.classesDtype], way).toEqual(['float32', 'int32']);
      got.scores.forEach((score, i) => expect(score, way).toBeCloseTo(api.detections[i]!.score, 5));
      got.boxes.forEach((box, i) => box.forEach((v, k) => expect(v, way).toBeCloseTo(api.detections[i]!.box[k]!, 3)));
    }
  });

  it('asks for the token like /api/detect when the gateway is exposed, and serves the client that sends it', async () => {
    const refused = await fetch(`${guarded.url}/v2/models/${MODEL}`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error?: string; type?: string; code?: string }).code ?? '').toBe('unauthorized');
    const result = await probe(guarded, TOKEN);
    expect(result.binary.labels.length).toBeGreaterThan(0);
    expect(result.modelReady).toBe(true);
  });
});

describe("KServe v2 infer, driven by the gateway's own codec", () => {
  const image = (text: string, binary = false): TensorToSend => ({
    name: 'image',
    datatype: 'BYTES',
    shape: [1],
    data: [new TextEncoder().encode(text)],
    binary,
  });
  const base64 = readPhoto('dog.jpg').toString('base64');

  async function infer(request: EncodedMessage): Promise<Response> {
    return fetch(`${open.url}/v2/models/${MODEL}/infer`, {
      method: 'POST',
      body: request.body as Uint8Array<ArrayBuffer>,
      headers: request.hasBinaryData ? { 'inference-header-content-length': String(request.headerLength) } : {},
    });
  }

  it('answers a JSON request in JSON, with the threshold it was given', async () => {
    const answer = await infer(encodeInferRequest([image(base64)], { binaryOutputs: false, id: 'a', parameters: { threshold: 0.5 } }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('inference-header-content-length')).toBeNull();
    const response = decodeInferResponse(new Uint8Array(await answer.arrayBuffer()));
    expect(response).toMatchObject({ modelName: MODEL, modelVersion: '1', id: 'a' });
    expect(response.outputs.map((o) => `${o.name}:${o.datatype}:${o.binary}`)).toEqual([
      'boxes:FP32:false',
      'scores:FP32:false',
      'classes:INT32:false',
      'labels:BYTES:false',
    ]);
    const scores = response.outputs[1]!.data as Float32Array;
    expect(scores.length).toBeGreaterThan(0);
    for (const score of scores) expect(score).toBeGreaterThanOrEqual(0.5);
  });

  it('refuses what does not decode, Base64 that is not canonical, an unknown output and a bad threshold, as bad_message', async () => {
    const refusal = async (request: EncodedMessage) => {
      const answer = await infer(request);
      return { status: answer.status, error: ((await answer.json()) as { error: string }).error };
    };
    const cut = encodeInferRequest([image('abc', true)]);
    expect(await refusal({ ...cut, body: cut.body.subarray(0, cut.body.length - 1) })).toEqual({
      status: 400,
      error: 'bad_message: input image: 7 bytes of binary data, 6 left in the body',
    });
    // "ab" is YWI= in Base64: unpadded, or with a character Node's own decoder would skip, it is refused as /api/detect refuses it.
    for (const text of ['YWI', 'YW I=']) {
      expect(await refusal(encodeInferRequest([image(text)]))).toEqual({
        status: 400,
        error: 'bad_message: input "image" in JSON must be the image as Base64 text',
      });
    }
    expect(await refusal(encodeInferRequest([image(base64)], { outputs: ['boxes', 'masks'] }))).toEqual({
      status: 400,
      error: 'bad_message: no output named "masks"; outputs: boxes, scores, classes, labels',
    });
    expect(await refusal(encodeInferRequest([image(base64)], { parameters: { threshold: 2 } }))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/parameters.threshold must be a number from 0 to 1/),
    });
  });
});
