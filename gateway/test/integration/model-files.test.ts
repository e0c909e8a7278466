/**
 * Model files for on-device inference: GET /api/models describes each model for a browser (input spec,
 * outputs, decoder, full labels, file URL, sha256, size), and GET /api/models/<name>/model.onnx serves the
 * verified file behind the token, with its sha256 as a strong ETag and long-lived caching.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_FILE_PATH, modelFilePath, type ModelsResponse } from '@sightline/shared/protocol';
import { validateModelsResponse } from '@sightline/shared/validation';
import type { RunningGateway } from '../../src/gateway.ts';
import { readModelSpecs } from '../../src/models/manifest.ts';
import { startTestGateway } from '../support/test-gateway.ts';

const TOKEN = 'model-files-token-0123456789';
const MODELS_DIR = join(import.meta.dirname, '..', '..', '..', 'models');
const auth = { authorization: `Bearer ${TOKEN}` };

let gateway: RunningGateway;
let models: ModelsResponse;

beforeAll(async () => {
  gateway = await startTestGateway({ token: TOKEN, workers: 1, threads: 1 });
  const response = await fetch(`${gateway.url}/api/models`, { headers: auth });
  models = validateModelsResponse(await response.json());
});
afterAll(() => gateway?.close());

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The status of a GET with exactly these headers (the body is discarded). */
function status(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('GET /api/models: what a browser needs to run each model', () => {
  it('describes every model from its manifest, with the full label array and the file', () => {
    const specs = readModelSpecs(MODELS_DIR);
    expect(models.models.map((m) => m.name).sort()).toEqual(specs.map((s) => s.manifest.name).sort());
    for (const spec of specs) {
      const info = models.models.find((m) => m.name === spec.manifest.name)!;
      const { manifest } = spec;
      expect(info.onDevice, manifest.name).toEqual({
        file: {
          url: `${modelFilePath(manifest.name)}?sha256=${manifest.sha256}`,
          sha256: manifest.sha256,
          bytes: readFileSync(spec.modelPath).byteLength,
        },
        license: manifest.license,
        input: manifest.input,
        outputs: manifest.outputs,
        decoder: manifest.decoder,
        labels: spec.labels,
        ...(manifest.classIds ? { classIds: manifest.classIds } : {}),
        iouThreshold: manifest.iouThreshold,
        maxDetections: manifest.maxDetections,
      });
      // The older field is unchanged: the labels the model reports, unused columns left out.
      expect(info.labels).toEqual(spec.labels.filter((label) => label !== ''));
    }
    const ssd = models.models.find((m) => m.name === 'ssdlite-mobilenetv2-coco')!;
    expect(ssd.onDevice!.labels).toContain('');
    expect(ssd.onDevice!.classIds).toBe('coco');
  });
});

describe(`GET ${MODEL_FILE_PATH}`, () => {
  it.each(['ssdlite-mobilenetv2-coco', 'blazeface-back-256'])(
    'serves %s: the verified bytes, ETag = sha256, cached for good',
    async (name) => {
      const file = models.models.find((m) => m.name === name)!.onDevice!.file;
      const response = await fetch(`${gateway.url}${file.url}`, { headers: auth });
      expect(response.status).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.byteLength).toBe(file.bytes);
      expect(sha256(bytes)).toBe(file.sha256);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('etag')).toBe(`"${file.sha256}"`);
      expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
      // Served like the rest: cross-origin isolated, same-origin only.
      expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    },
  );

  it('answers a revalidation with 304 and a range request with 206', async () => {
    const file = models.models.find((m) => m.name === 'blazeface-back-256')!.onDevice!.file;
    // node:http, not fetch: fetch turns a conditional request into Cache-Control: no-cache, which bypasses 304.
    const revalidated = await status(`${gateway.url}${file.url}`, { ...auth, 'if-none-match': `"${file.sha256}"` });
    expect(revalidated).toBe(304);
    const range = await fetch(`${gateway.url}${file.url}`, { headers: { ...auth, range: 'bytes=0-15' } });
    expect(range.status).toBe(206);
    expect((await range.arrayBuffer()).byteLength).toBe(16);
  });

  it('is behind the token like the rest of /api', async () => {
    const response = await fetch(`${gateway.url}${modelFilePath('blazeface-back-256')}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ type: 'error', code: 'unauthorized' });
  });

  it('answers 404 unknown_model for a name it lacks, and for a digest that is not the current file', async () => {
    for (const path of [
      modelFilePath('nope'),
      modelFilePath('../models'),
      `${modelFilePath('blazeface-back-256')}?sha256=${'0'.repeat(64)}`,
    ]) {
      const response = await fetch(`${gateway.url}${path}`, { headers: auth });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ type: 'error', code: 'unknown_model' });
    }
  });
});
