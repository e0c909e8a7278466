/** The HTTP surface over real loopback HTTP: every body type, every error, models, health, metrics. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decode as msgpackDecode, encode as msgpackEncode } from '@msgpack/msgpack';
import {
  PROTOCOL_VERSION,
  type DetectionsMessage,
  type ErrorMessage,
  type HealthResponse,
  type ModelsResponse,
} from '@sightline/shared/protocol';
import type { RunningGateway } from '../../src/gateway.ts';
import { photo, pngBombHeader, reencode } from '../support/images.ts';
import { missingLabels } from '../support/labels.ts';
import { startTestGateway } from '../support/test-gateway.ts';

let gateway: RunningGateway;
const MAX_MESSAGE_BYTES = 1024 * 1024;
beforeAll(async () => {
  gateway = await startTestGateway({ maxMessageBytes: MAX_MESSAGE_BYTES, threads: 2, workers: 2 });
});
afterAll(() => gateway?.close());

const dog = photo('dog.jpg');
const DOG_LABELS = ['bicycle', 'dog', 'car|truck'];

function post(body: string | Uint8Array, contentType: string, extra: { path?: string; accept?: string } = {}) {
  return fetch(`${gateway.url}/api/detect${extra.path ?? ''}`, {
    method: 'POST',
    headers: { 'Content-Type': contentType, ...(extra.accept ? { Accept: extra.accept } : {}) },
    body,
  });
}

describe('POST /api/detect', () => {
  it.each([
    ['image/jpeg', () => Promise.resolve(dog)],
    ['image/png', () => reencode('dog.jpg', 'png')],
    ['image/webp', () => reencode('dog.jpg', 'webp')],
  ])('detects in a raw %s body', async (type, body) => {
    const response = await post(await body(), type);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    const result = (await response.json()) as DetectionsMessage;
    expect(result).toMatchObject({ type: 'detections', model: 'ssdlite-mobilenetv2-coco', width: 640, height: 480 });
    expect(missingLabels(result.detections, DOG_LABELS)).toEqual([]);
    expect(result.timings.serverMs).toBeGreaterThan(result.timings.inferenceMs);
  });

  it('takes model, threshold, id and ts from the query string with a raw body', async () => {
    const response = await post(photo('astronaut.jpg'), 'image/jpeg', { path: '?model=blazeface-back-256&threshold=0.8&id=12&ts=99.5' });
    const result = (await response.json()) as DetectionsMessage;
    expect(result).toMatchObject({ model: 'blazeface-back-256', id: 12, ts: 99.5 });
    expect(result.detections.map((d) => d.label)).toEqual(['face']);
  });

  it('detects in a JSON body with a Base64 image', async () => {
    const response = await post(JSON.stringify({ image: dog.toString('base64'), id: 3, ts: 7 }), 'application/json');
    expect(response.status).toBe(200);
    const result = (await response.json()) as DetectionsMessage;
    expect(result).toMatchObject({ id: 3, ts: 7 });
    expect(missingLabels(result.detections, DOG_LABELS)).toEqual([]);
  });

  it('detects in a MessagePack body and answers MessagePack when asked to', async () => {
    const body = msgpackEncode({ image: dog, model: 'ssdlite-mobilenetv2-coco', threshold: 0.6 });
    const response = await post(body, 'application/msgpack', { accept: 'application/msgpack' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/msgpack/);
    const result = msgpackDecode(new Uint8Array(await response.arrayBuffer())) as DetectionsMessage;
    expect(result.type).toBe('detections');
    expect(Math.min(...result.detections.map((d) => d.score))).toBeGreaterThanOrEqual(0.6);
  });

  it.each<[string, () => Promise<Response>, number, ErrorMessage['code'], RegExp]>([
    ['an empty body', () => post(new Uint8Array(0), 'image/jpeg'), 400, 'bad_message', /empty body/],
    ['an unsupported content type', () => post('hello', 'text/plain'), 400, 'bad_message', /Content-Type/],
    ['malformed JSON', () => post('{"image": "AA', 'application/json'), 400, 'bad_message', /JSON/],
    ['JSON without image', () => post('{"model":"x"}', 'application/json'), 400, 'bad_message', /image/],
    ['bad Base64', () => post(JSON.stringify({ image: '!!!!' }), 'application/json'), 400, 'bad_message', /Base64/],
    ['malformed MessagePack', () => post(new Uint8Array([0xc1]), 'application/msgpack'), 400, 'bad_message', /MessagePack/],
    ['a bad threshold', () => post(dog, 'image/jpeg', { path: '?threshold=3' }), 400, 'bad_message', /threshold/],
    ['non-image bytes', () => post('definitely not a jpeg', 'image/jpeg'), 415, 'bad_image', /JPEG, PNG or WebP/],
    ['a truncated JPEG', () => post(dog.subarray(0, 300), 'image/jpeg'), 415, 'bad_image', /./],
    ['an unknown model', () => post(dog, 'image/jpeg', { path: '?model=nope' }), 404, 'unknown_model', /nope/],
    ['a decompression bomb', () => post(pngBombHeader(), 'image/png'), 413, 'too_large', /50000x50000/],
    ['an oversized body', () => post(Buffer.alloc(MAX_MESSAGE_BYTES + 1), 'image/jpeg'), 413, 'too_large', /too large/],
  ])('refuses %s', async (_name, send, status, code, message) => {
    const response = await send();
    expect(response.status).toBe(status);
    const body = (await response.json()) as ErrorMessage;
    expect(body).toMatchObject({ type: 'error', code });
    expect(body.message).toMatch(message);
  });

  it('keeps working after all of that', async () => {
    const response = await post(dog, 'image/jpeg');
    expect(response.status).toBe(200);
  });
});

describe('GET endpoints', () => {
  it('lists the models with their input sizes and labels', async () => {
    const body = (await (await fetch(`${gateway.url}/api/models`)).json()) as ModelsResponse;
    expect(body.defaultModel).toBe('ssdlite-mobilenetv2-coco');
    const ssd = body.models.find((m) => m.name === 'ssdlite-mobilenetv2-coco')!;
    expect(ssd).toMatchObject({ kind: 'objects', default: true, input: { width: 300, height: 300, resize: 'stretch' } });
    expect(ssd.labels).toHaveLength(80);
    expect(ssd.labels).toContain('person');
    const face = body.models.find((m) => m.name === 'blazeface-back-256')!;
    expect(face).toMatchObject({
      kind: 'faces',
      default: false,
      labels: ['face'],
      input: { width: 256, height: 256, resize: 'letterbox' },
    });
  });

  it('reports health with the loaded models', async () => {
    const response = await fetch(`${gateway.url}/healthz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as HealthResponse;
    expect(body).toMatchObject({ ok: true, protocol: PROTOCOL_VERSION, state: 'ready', instance: expect.stringMatching(/.+-\d+/) });
    expect(body.modelsLoaded).toEqual(expect.arrayContaining(['ssdlite-mobilenetv2-coco', 'blazeface-back-256']));
  });

  it('exposes Prometheus metrics counting the frames answered', async () => {
    await post(dog, 'image/jpeg');
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(text).toMatch(/sightline_frames_total\{transport="http",codec="raw",outcome="detections",gateway_instance="[^"]+"\} \d+/);
    expect(text).toMatch(/^sightline_stage_seconds_bucket\{[^}]*stage="inference"/m);
    expect(text).toMatch(/^sightline_frame_seconds_count\{[^}]*model="[^"]+"[^}]*\} [1-9]/m);
  });

  it('gives a frame alone every thread, and runs frames that queue up side by side', async () => {
    const runs = async () => {
      const text = await (await fetch(`${gateway.url}/metrics`)).text();
      const count = (threads: string) =>
        Number(new RegExp(`sightline_inference_runs_total\\{threads="${threads}"[^}]*\\} (\\d+)`).exec(text)?.[1] ?? 0);
      return { all: count('all'), shared: count('shared') };
    };
    const before = await runs();
    await post(dog, 'image/jpeg');
    const alone = await runs();
    expect(alone).toEqual({ all: before.all + 1, shared: before.shared });
    // Eight at once: while one runs, the rest queue, and queued frames run on a thread share each.
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(dog, 'image/jpeg')));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(missingLabels(((await answer.json()) as DetectionsMessage).detections, ['bicycle', 'dog'])).toEqual([]);
    }
    const burst = await runs();
    expect(burst.all + burst.shared - alone.all - alone.shared).toBe(8);
    expect(burst.shared).toBeGreaterThan(alone.shared);
  });
});
