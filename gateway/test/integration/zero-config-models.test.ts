/**
 * Zero-config model folders on a real gateway: a folder holding only an Ultralytics-style `model.onnx` is
 * served under the folder's name, its manifest inferred from the file. The exports are the shipped SSD
 * wrapped into each YOLO layout (models/tools/onnx_fixtures.py); their detections over the WebSocket must be
 * those of the independent Python reference (models/tools/reference_decode.py) on a photo that fills the
 * 640-wide input at its own size (no resampling on either side). Broken exports are reported with their
 * reason, and a folder dropped in while the gateway runs is served without a restart.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPhoto } from '@sightline/shared/fixtures';
import { iou } from '@sightline/shared/model';
import { MODELS_PATH, type DetectionsMessage, type ModelsResponse } from '@sightline/shared/protocol';
import { WireClient } from '@sightline/harness/client';
import type { RunningGateway } from '../../src/gateway.ts';
import { ensureOnnxFixtures, ONNX_FIXTURES_TIMEOUT_MS, YOLO_LAYOUTS, type OnnxFixtures } from '@sightline/harness/onnx-fixtures';
import { startTestGateway } from '../support/test-gateway.ts';

let dir: string;
let fixtures: OnnxFixtures;
let gateway: RunningGateway;

function dropIn(name: string, file: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  copyFileSync(file, join(dir, name, 'model.onnx'));
}

async function models(): Promise<ModelsResponse> {
  return (await fetch(`${gateway.url}${MODELS_PATH}`)).json() as Promise<ModelsResponse>;
}

beforeAll(async () => {
  fixtures = await ensureOnnxFixtures();
  dir = mkdtempSync(join(tmpdir(), 'sightline-zero-config-'));
  dropIn('yolov8-ssd', fixtures.wrappedSsd('yolov8'));
  dropIn('yolov5-ssd', fixtures.wrappedSsd('yolov5'));
  for (const broken of ['not-onnx', 'truncated', 'segment', 'input-rank', 'output-layout'] as const)
    dropIn(broken, fixtures.broken(broken));
  gateway = await startTestGateway({ modelsDir: dir, workers: 1 });
}, ONNX_FIXTURES_TIMEOUT_MS);
afterAll(async () => {
  await gateway?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('zero-config model folders', () => {
  it("serves each export under its folder's name with Ultralytics' conventions, and reports each broken one", async () => {
    const listed = await models();
    expect(listed.models.map((m) => m.name)).toEqual(['yolov5-ssd', 'yolov8-ssd']);
    const v8 = listed.models.find((m) => m.name === 'yolov8-ssd')!;
    expect(v8).toMatchObject({ input: { width: 640, height: 640, layout: 'NCHW', resize: 'letterbox' }, scoreThreshold: 0.25 });
    expect(v8.onDevice).toMatchObject({ decoder: 'yolov8', input: { pad: 114, range: [0, 1] }, iouThreshold: 0.7 });
    const reasons = Object.fromEntries((listed.unavailable ?? []).map((u) => [u.name, u.reason]));
    expect(Object.keys(reasons).sort()).toEqual(['input-rank', 'not-onnx', 'output-layout', 'segment', 'truncated']);
    expect(reasons.segment).toMatch(/segment/);
    for (const reason of Object.values(reasons)) expect(reason).not.toMatch(/\n/);
  });

  it('detects over the WebSocket what the independent Python reference finds', async () => {
    const reference = fixtures.reference();
    const client = await WireClient.connect(`ws://127.0.0.1:${gateway.port}/ws`);
    for (const [id, layout] of (['yolov8', 'yolov5'] as const).entries()) {
      client.send({ type: 'frame', id, ts: id, image: readPhoto('dog.jpg'), model: `${layout}-ssd` }, 'msgpack');
      const answer = (await client.answer(id)).message as DetectionsMessage;
      const expected = reference[layout]['dog.jpg']!;
      expect(answer.detections.map((d) => d.label)).toEqual(expected.map((d) => d.label));
      answer.detections.forEach((d, i) => {
        expect(Math.abs(d.score - expected[i]!.score), `${layout} ${d.label} score`).toBeLessThanOrEqual(1e-3);
        expect(iou(d.box, expected[i]!.box), `${layout} ${d.label} box`).toBeGreaterThanOrEqual(0.995);
      });
    }
    client.close();
  });

  it('serves an export dropped in while it runs, without a restart, with what a partial manifest beside it overrides', async () => {
    expect(YOLO_LAYOUTS).toContain('yolo-end2end');
    dropIn('end2end-ssd', fixtures.wrappedSsd('yolo-end2end'));
    writeFileSync(join(dir, 'end2end-ssd', 'manifest.json'), JSON.stringify({ title: 'My detector', scoreThreshold: 0.3 }));
    await gateway.reloadModels();
    const listed = await models();
    const added = listed.models.find((m) => m.name === 'end2end-ssd');
    expect(added).toMatchObject({ title: 'My detector', scoreThreshold: 0.3, onDevice: { decoder: 'yolo-end2end' } });
    const response = await fetch(`${gateway.url}/api/detect?model=end2end-ssd`, {
      method: 'POST',
      body: readPhoto('dog.jpg'),
      headers: { 'content-type': 'image/jpeg' },
    });
    const answer = (await response.json()) as DetectionsMessage;
    const expected = fixtures.reference()['yolo-end2end']['dog.jpg']!.filter((d) => d.score > 0.3);
    expect(answer.detections.map((d) => d.label)).toEqual(expected.map((d) => d.label));
  });
});
