/**
 * The gateway in front of a real serving engine (Triton, deploy/triton/serve.py): SIGHTLINE_INFERENCE_URL
 * runs every model there under its manifest name while the gateway decodes, builds the tensor and decodes
 * the outputs. Photos through the gateway to Triton get the detections a gateway running the same model
 * itself finds; then the engine is killed: /readyz turns 503 and frames are answered `unavailable` at once
 * (not after a hang); then it is started again on its ports and the gateway recovers by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedLabels, readPhoto } from '@sightline/shared/fixtures';
import { iou } from '@sightline/shared/model';
import { READY_PATH, type DetectionsMessage, type ErrorMessage, type ServerMessage } from '@sightline/shared/protocol';
import { WireClient } from '@sightline/harness/client';
import type { RunningGateway } from '../../src/gateway.ts';
import { startTritonProcess, type TritonProcess } from '@sightline/harness/process';
import { startTestGateway } from '../support/test-gateway.ts';

const MODELS = ['ssdlite-mobilenetv2-coco', 'blazeface-back-256'];
/** Readiness follows the engine within a few probe intervals (1 s each); this only bounds a broken test. */
const FOLLOW_MS = 30_000;

let triton: TritonProcess;
let remote: RunningGateway;
let local: RunningGateway;

beforeAll(async () => {
  triton = await startTritonProcess({ models: MODELS, maxBatchSize: 4 });
  [remote, local] = await Promise.all([
    startTestGateway({ inferenceUrl: triton.url, inferenceTimeoutMs: 5000, workers: 1 }),
    startTestGateway({ workers: 1 }),
  ]);
}, 20 * 60_000);

afterAll(async () => {
  await Promise.all([remote?.close(), local?.close()]);
  await triton?.stop();
});

async function detect(gateway: RunningGateway, photo: string, model: string): Promise<ServerMessage> {
  const client = await WireClient.connect(`ws://127.0.0.1:${gateway.port}/ws`);
  try {
    client.send({ type: 'frame', id: 1, ts: 1, image: readPhoto(photo), model }, 'msgpack');
    return (await client.answer(1)).message;
  } finally {
    client.close();
  }
}

async function readyStatus(): Promise<number> {
  return (await fetch(`${remote.url}${READY_PATH}`)).status;
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + FOLLOW_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('remote inference engine', () => {
  it('detects through the engine what the gateway finds running the model itself, on every fixture photo', async () => {
    expect(await readyStatus()).toBe(200);
    for (const [photo, byModel] of Object.entries(expectedLabels())) {
      for (const model of Object.keys(byModel)) {
        const [there, here] = (await Promise.all([detect(remote, photo, model), detect(local, photo, model)])) as DetectionsMessage[];
        expect(there!.type, `${photo} ${model}`).toBe('detections');
        expect(
          there!.detections.map((d) => d.label),
          `${photo} ${model}`,
        ).toEqual(here!.detections.map((d) => d.label));
        there!.detections.forEach((d, i) => {
          expect(Math.abs(d.score - here!.detections[i]!.score), `${photo} ${d.label}`).toBeLessThanOrEqual(0.002);
          expect(iou(d.box, here!.detections[i]!.box), `${photo} ${d.label}`).toBeGreaterThan(0.99);
        });
      }
    }
  });

  it('answers `unavailable` at once and fails readiness while the engine is gone, and recovers by itself', async () => {
    await triton.kill();
    await until(async () => (await readyStatus()) === 503, '/readyz 503 after the engine was killed');
    const body = (await (await fetch(`${remote.url}${READY_PATH}`)).json()) as { reason: string };
    expect(body.reason).toMatch(/inference engine unavailable/);
    // The circuit is open: refused on receipt, with when to retry, not after the request's timeout.
    const refused = (await detect(remote, 'dog.jpg', MODELS[0]!)) as ErrorMessage;
    expect(refused).toMatchObject({ type: 'error', code: 'unavailable', retryAfterMs: expect.any(Number) });
    const http = await fetch(`${remote.url}/api/detect`, {
      method: 'POST',
      body: readPhoto('dog.jpg'),
      headers: { 'content-type': 'image/jpeg' },
    });
    expect(http.status).toBe(503);
    expect(http.headers.get('retry-after')).toMatch(/^\d+$/);
    // Models it does not run are not affected; the gateway itself is alive throughout.
    expect((await fetch(`${remote.url}/livez`)).status).toBe(200);

    await triton.restart();
    await until(async () => (await readyStatus()) === 200, '/readyz 200 after the engine came back');
    expect((await detect(remote, 'dog.jpg', MODELS[0]!)).type).toBe('detections');
  });
});
