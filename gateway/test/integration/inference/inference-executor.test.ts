/**
 * The inference executor with real worker threads, real onnxruntime and the shipped SSD, behind the real
 * scheduler (it has no queue of its own): models opened, refused, replaced and closed while it serves, what
 * a frame's result carries, batches, how it stops, and the watchdog that replaces a worker whose run does not
 * return. No worker is ever terminated here: onnxruntime aborts the process when a thread dies inside a run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegBombHeader, readPhoto } from '@sightline/shared/fixtures';
import type { FrameResult } from '@sightline/shared/model';
import { stageTimingsSchema } from '@sightline/shared/schemas';
import { ProtocolError } from '@sightline/shared/validation';
import { admitImage } from '../../../src/admission/image-admission.ts';
import { planDecode } from '../../../src/decode/decode-plan.ts';
import { InferenceExecutor, type InferenceJob } from '../../../src/inference/inference-executor.ts';
import { createLogger } from '../../../src/logger.ts';
import { readModelSpec, type ModelSpec } from '../../../src/models/manifest.ts';
import { FairScheduler } from '../../../src/scheduling/fair-scheduler.ts';
import { SHIPPED_MODELS_DIR } from '../../support/model-folder-fixtures.ts';

const SSD = 'ssdlite-mobilenetv2-coco';
const MAX_PIXELS = 40_000_000;
const ssd = readModelSpec(join(SHIPPED_MODELS_DIR, SSD));
const dog = readPhoto('dog.jpg');
/** The same weights answering in other words: which version ran a frame shows in its labels. */
const ssdWithHounds: ModelSpec = { ...ssd, labels: ssd.labels.map((label) => (label === 'dog' ? 'hound' : label)) };

const scratch = mkdtempSync(join(tmpdir(), 'sightline-pool-'));
const notOnnx = join(scratch, 'model.onnx');
writeFileSync(notOnnx, 'these bytes are not an ONNX model');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Result = FrameResult & { queueMs: number };
const labels = (result: Result) => result.detections.map((d) => d.label);

/**
 * `run(image, model)`: the frame read and planned as admission does (its refusals reject the same way), then
 * queued in a lane of its own in front of the executor, as the gateway does; resolves with the worker's result
 * and the frame's wait from its push to its start.
 */
function queued(executor: InferenceExecutor) {
  const scheduler = new FairScheduler<InferenceJob, FrameResult>({ budgetMs: 1e9, maxWaiting: 100 }, executor);
  return async (image: Uint8Array = dog, model = SSD): Promise<Result> => {
    const { header } = admitImage(image, { maxPixels: MAX_PIXELS, maxFrameDecodeBytes: 1e12 });
    const plan = planDecode(header, ssd.manifest.input, { turbo: executor.decodesJpeg });
    const job: InferenceJob = { model, threshold: 0.5, frame: { kind: 'encoded', bytes: image, header, plan } };
    const pushedAt = performance.now();
    return new Promise<Result>((resolve, reject) => {
      const lane = scheduler.lane({
        maxInFlight: 1,
        queueLength: 1,
        complete: (_job, outcome, startedAt) => {
          lane.detach();
          if (outcome instanceof Error) reject(outcome);
          else resolve({ ...outcome, queueMs: startedAt - pushedAt });
        },
        drop: (_job, reason) => {
          lane.detach();
          reject(new Error(`dropped: ${reason}`));
        },
      });
      lane.push(job);
    });
  };
}

async function refusal(running: Promise<unknown>): Promise<ProtocolError> {
  const error = await running.then(
    () => new Error('not refused'),
    (e: unknown) => e,
  );
  if (!(error instanceof ProtocolError)) throw error;
  return error;
}

describe('inference executor (two workers)', () => {
  let pool: InferenceExecutor;
  let run: ReturnType<typeof queued>;
  /** Each run as it starts: true when it has every thread. */
  const runs: boolean[] = [];

  beforeAll(async () => {
    pool = await InferenceExecutor.start({
      threads: 2,
      workers: 2,
      maxPixels: MAX_PIXELS,
      turbo: true,
      logger: createLogger('silent'),
      onRun: (wide) => runs.push(wide),
    });
    await pool.load(ssd);
    run = queued(pool);
  });
  afterAll(() => pool?.close());

  it('opens a model in every worker: a frame alone runs on every thread, frames that start together run side by side on both', async () => {
    expect(pool.modelNames).toEqual([SSD]);
    expect(pool.healthy).toBe(true);
    runs.length = 0;
    const alone = await run();
    expect(runs).toEqual([true]);
    const together = await Promise.all([run(), run(), run()]);
    // Two start side by side, each on its share of the threads; the third takes the first worker that frees up.
    expect(runs).toEqual([true, false, false, false]);
    for (const result of [alone, ...together]) expect(labels(result)).toContain('dog');
  });

  it("answers with the protocol's stage names, the decoder that took the frame, and the wait for a worker", async () => {
    const png = await sharp(dog).png().toBuffer();
    const [jpegResult, , pngResult] = await Promise.all([run(), run(), run(png)]);
    const workerStages = Object.keys(stageTimingsSchema.shape)
      .filter((stage) => stage !== 'queueMs' && stage !== 'serverMs')
      .sort();
    for (const result of [jpegResult, pngResult]) {
      expect(Object.keys(result.stages).sort()).toEqual(workerStages);
      for (const ms of Object.values(result.stages)) expect(ms).toBeGreaterThanOrEqual(0);
      expect([result.width, result.height]).toEqual([640, 480]);
    }
    expect([jpegResult.decoder, pngResult.decoder]).toEqual(['turbo', 'sharp']);
    // Two workers: the first two started at once; the third waited for one of them to finish.
    expect(pngResult.queueMs).toBeGreaterThan(jpegResult.queueMs);
    expect(pool.decodesJpeg).toBe(true);
  });

  it('answers a frame no decoder takes with a ProtocolError, and serves the next one', async () => {
    expect((await refusal(run(dog.subarray(0, dog.length >> 1)))).code).toBe('bad_image');
    expect((await refusal(run(jpegBombHeader(64, 64)))).code).toBe('bad_image');
    expect((await refusal(run(Buffer.from('GIF89a....')))).code).toBe('bad_image');
    expect((await refusal(run(jpegBombHeader(8000, 6000)))).code).toBe('too_large');
    expect(labels(await run())).toContain('dog');
    expect(pool.healthy).toBe(true);
  });

  it("refuses a file that is not an ONNX model with onnxruntime's reason, and serves what it had", async () => {
    await expect(pool.load({ ...ssd, manifest: { ...ssd.manifest, name: 'broken' }, modelPath: notOnnx })).rejects.toThrow(
      /Protobuf parsing failed/,
    );
    expect(pool.modelNames).toEqual([SSD]);
    expect((await refusal(run(dog, 'broken'))).code).toBe('unknown_model');

    // A broken replacement: the version being served stays.
    await expect(pool.load({ ...ssdWithHounds, modelPath: notOnnx })).rejects.toThrow(/Protobuf parsing failed/);
    const results = await Promise.all([run(), run(), run()]);
    for (const result of results) expect(labels(result)).toContain('dog');
  });

  it('replaces a model while a frame runs: that frame finishes on the old version, the next ones run on the new', async () => {
    const running = run();
    const replacing = pool.load(ssdWithHounds);
    const [during] = await Promise.all([running, replacing]);
    expect(labels(during)).toContain('dog');
    const after = await Promise.all([run(), run(), run()]);
    for (const result of after) {
      expect(labels(result)).toContain('hound');
      expect(labels(result)).not.toContain('dog');
    }
    expect(pool.modelNames).toEqual([SSD]);
  });

  it('answers frames for a model unloaded `unknown_model`, in every worker; a load brings it back', async () => {
    await pool.unload(SSD);
    expect(pool.modelNames).toEqual([]);
    const refused = await Promise.all([0, 1, 2].map(() => refusal(run())));
    expect(refused.map((e) => e.code)).toEqual(['unknown_model', 'unknown_model', 'unknown_model']);
    await pool.load(ssd);
    expect(labels(await run())).toContain('dog');
  });
});

describe('inference executor stopping (one worker, sharp for every frame)', () => {
  let pool: InferenceExecutor;
  let run: ReturnType<typeof queued>;

  beforeAll(async () => {
    pool = await InferenceExecutor.start({ threads: 1, workers: 1, maxPixels: MAX_PIXELS, turbo: false, logger: createLogger('silent') });
    await pool.load(ssd);
    run = queued(pool);
  });
  afterAll(() => pool?.close());

  it('decodes JPEG with sharp when libjpeg-turbo is turned off', async () => {
    expect(pool.decodesJpeg).toBe(false);
    expect((await run()).decoder).toBe('sharp');
  });

  it('lets the running frame finish before it stops, and refuses every later run', async () => {
    const order: string[] = [];
    const running = run().then((result) => {
      order.push('frame answered');
      return result;
    });
    await new Promise((resolve) => setImmediate(resolve)); // the scheduler has started it
    expect(pool.freePlaces).toBe(0);
    const closed = pool.close().then(() => order.push('pool closed'));
    expect(labels(await running)).toContain('dog');
    await closed;
    expect(order).toEqual(['frame answered', 'pool closed']);
    expect(pool.healthy).toBe(false);
    expect(pool.placeFor(false)).toBeUndefined();
    const late = await pool.run({ worker: 0, wide: true }, [
      {
        model: SSD,
        threshold: 0.5,
        frame: {
          kind: 'pixels',
          rgb: { data: new Uint8Array(3), width: 1, height: 1 },
          width: 1,
          height: 1,
          placement: { offsetX: 0, offsetY: 0, contentWidth: 1, contentHeight: 1 },
          decoder: 'test',
        },
      },
    ]);
    expect(late[0]).toMatchObject({ code: 'internal', message: 'the gateway is shutting down' });
  });
});

describe('inference executor, batching', () => {
  let pool: InferenceExecutor;
  let run: ReturnType<typeof queued>;
  const runs: number[] = [];

  beforeAll(async () => {
    pool = await InferenceExecutor.start({
      threads: 2,
      workers: 1,
      maxPixels: MAX_PIXELS,
      turbo: true,
      maxBatch: 3,
      logger: createLogger('silent'),
      onRun: (_wide, frames) => runs.push(frames),
    });
    await pool.load(ssd);
    run = queued(pool);
  });
  afterAll(() => pool?.close());

  it('runs the frames that queue up as one batch, each with the detections it gets alone, a bad image failing alone', async () => {
    const kite = readPhoto('kite.jpg');
    const alone = await Promise.all([dog, kite].map(async (image) => labels(await run(image))));
    runs.length = 0;
    // One worker: the five frames start in batches of at most three, in the order they queued. The cut JPEG
    // passes the checks on receipt (its scan starts) and fails in the decoder, alone, inside its batch.
    const cut = dog.subarray(0, dog.length >> 1);
    const results = await Promise.allSettled([dog, dog, kite, cut, dog].map((image) => run(image)));
    expect(runs).toEqual([3, 2]);
    const [first, second, third, bad, fifth] = results;
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'bad_image' } });
    for (const [result, expected] of [
      [first, alone[0]],
      [second, alone[0]],
      [third, alone[1]],
      [fifth, alone[0]],
    ] as const) {
      expect(result!.status).toBe('fulfilled');
      expect(labels((result as PromiseFulfilledResult<Result>).value)).toEqual(expected);
    }
  });
});

describe('inference executor watchdog (a run that does not return)', () => {
  let pool: InferenceExecutor;
  let run: ReturnType<typeof queued>;
  let engine: Server;
  const held = new Set<ServerResponse>();
  const STALL_MS = 1500;

  beforeAll(async () => {
    // A serving engine that takes every request and never answers: the remote model's run hangs in its worker.
    engine = createServer((_request, response) => void held.add(response));
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(engine.address() as AddressInfo).port}`;
    pool = await InferenceExecutor.start({
      threads: 1,
      workers: 1,
      maxPixels: MAX_PIXELS,
      turbo: false,
      engineTimeoutMs: 120_000,
      stallMs: STALL_MS,
      logger: createLogger('silent'),
    });
    await pool.load(ssd);
    await pool.load({ ...ssd, manifest: { ...ssd.manifest, name: 'hanging' }, engine: { url, model: 'hanging' } });
    run = queued(pool);
  });
  afterAll(async () => {
    await pool?.close();
    for (const response of held) response.destroy();
    engine?.closeAllConnections();
    await new Promise<void>((resolve) => engine?.close(() => resolve()));
  });

  it('answers the stalled run `unavailable`, and a new worker with every model takes the next frame', async () => {
    const stalled = await refusal(run(dog, 'hanging'));
    expect(stalled).toMatchObject({ code: 'unavailable', retryAfterMs: expect.any(Number) });
    expect(stalled.message).toMatch(/longer than 1500 ms/);
    // The next frame waits for the replacement (it opens the shipped model first), then runs as usual.
    expect(labels(await run(dog))).toContain('dog');
    expect(pool.healthy).toBe(true);
  });
});
