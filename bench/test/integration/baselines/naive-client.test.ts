/**
 * The naive Python client (a raw JPEG per binary WebSocket message, the next frame on any reply) against a
 * real gateway child process, as a user's script would talk to it: greeted, every frame answered in JSON, and,
 * the client keeping one frame in flight, every frame detected (a closed-loop client's frame is always
 * queued). What is asserted is what the code controls, never how many frames fit in the seconds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess, type PythonEnv } from '@sightline/harness/process';
import { readPhoto } from '@sightline/shared/fixtures';
import { naiveClientPython, runNaiveClient } from '../../../baselines/naive-client.ts';

let gateway: GatewayProcess;
let python: PythonEnv;
let frames: string;

beforeAll(async () => {
  [gateway, python] = await Promise.all([startGatewayProcess(), naiveClientPython()]);
  frames = mkdtempSync(join(tmpdir(), 'sightline-naive-client-test-'));
  for (const name of ['dog.jpg', 'person.jpg'])
    writeFileSync(join(frames, name), await sharp(readPhoto(name)).resize(320, 240, { fit: 'cover' }).jpeg({ quality: 80 }).toBuffer());
});

afterAll(async () => {
  await gateway?.stop();
  if (frames) rmSync(frames, { recursive: true, force: true });
});

describe('naive Python client against a real gateway', () => {
  it('two clients for two seconds: greeted, every frame answered and detected, samples for every detection', async () => {
    const report = await runNaiveClient({ url: gateway.url, clients: 2, durationS: 2, warmup: 1, timeoutS: 30, framesDir: frames }, python);
    expect(report.url).toBe(`${gateway.url.replace(/^http/, 'ws')}/ws`);
    expect(report.perClient).toHaveLength(2);
    for (const c of report.perClient) {
      expect(c).toMatchObject({
        hello: true,
        closed: null,
        unanswered: 0,
        warmupUnanswered: 0,
        dropped: {},
        errors: {},
        other: 0,
        otherKinds: {},
      });
      expect(c.sent).toBeGreaterThan(0);
      expect(c.detections).toBe(c.sent);
      expect(c.samples.latencyMs).toHaveLength(c.detections);
      expect(c.samples.serverMs).toHaveLength(c.detections);
    }
    expect(report.total.sent).toBe(report.perClient[0]!.sent + report.perClient[1]!.sent);
    expect(report.wallS).toBeGreaterThan(0);
  });

  it('names the model in the URL, and reports an upgrade refused for a bad query', async () => {
    const face = await runNaiveClient(
      {
        url: gateway.url,
        clients: 1,
        durationS: 0.5,
        warmup: 0,
        timeoutS: 30,
        framesDir: frames,
        model: 'blazeface-back-256',
        threshold: 0.5,
      },
      python,
    );
    expect(face.url).toBe(`${gateway.url.replace(/^http/, 'ws')}/ws?model=blazeface-back-256&threshold=0.5`);
    expect(face.perClient[0]).toMatchObject({ closed: null, unanswered: 0 });
    expect(face.perClient[0]!.detections).toBe(face.perClient[0]!.sent);

    const refused = await runNaiveClient(
      { url: gateway.url, clients: 1, durationS: 0.5, warmup: 0, timeoutS: 30, framesDir: frames, threshold: 7 },
      python,
    );
    expect(refused.perClient[0]).toMatchObject({ sent: 0 });
    expect(refused.perClient[0]!.closed).toMatch(/could not connect.*400.*threshold/);
  });
});
