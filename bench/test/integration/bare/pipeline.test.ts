/**
 * The decode + inference loop with the gateway's own decoders, plan and session options (bench/bare/pipeline.ts):
 * it runs whole frames in its worker threads and times each stage. A figure is not checked, only that
 * every stage ran and each frame took the decoder the gateway's plan gives it: speed is measured by the
 * matrix, never by tests.
 */
import { DEFAULT_CONFIG } from '@sightline/gateway';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { benchModelSpec } from '../../../bare/model-specs.ts';
import { barePipeline } from '../../../bare/pipeline.ts';
import { loadInputs } from '../../../client/inputs.ts';

const spec = await benchModelSpec('ssdlite-mobilenetv2-coco');

async function frames(width: number, height: number, count = 2): Promise<Uint8Array[]> {
  const inputs = await loadInputs({ source: { kind: 'default' }, resize: { width, height }, quality: 80 });
  return inputs.slice(0, count).map((i) => i.bytes);
}

const options = (streams: number, seconds = 0.5) => ({
  threads: streams === 1 ? 2 : 1,
  streams,
  seconds,
  maxPixels: DEFAULT_CONFIG.maxPixels,
});

describe('bare decode + inference loop', () => {
  it('runs JPEG frames the fast path takes through libjpeg-turbo and every stage, side by side', async () => {
    const result = await barePipeline(spec, await frames(320, 240), options(2));
    expect(result).toMatchObject({ streams: 2, threads: 1, model: 'ssdlite-mobilenetv2-coco', decoders: { sharp: 0 } });
    expect(result.runs).toBeGreaterThan(0);
    expect(result.decoders.turbo).toBe(result.runs);
    expect(result.fps).toBeGreaterThan(0);
    for (const stage of Object.values(result.stages)) expect(stage).toBeGreaterThan(0);
    const sum = result.stages.decodeMs + result.stages.preprocessMs + result.stages.inferenceMs + result.stages.postprocessMs;
    expect(sum).toBeLessThanOrEqual(result.meanMs * 1.01);
  });

  it("decodes what the plan gives to sharp with the gateway's sharp decoder", async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    // The PNG first: the stream's first counted frame is the one the plan gives to sharp.
    const result = await barePipeline(spec, [new Uint8Array(png), ...(await frames(640, 480, 1))], options(1));
    expect(result.decoders.sharp).toBeGreaterThan(0);
    expect(result.decoders.sharp + result.decoders.turbo).toBe(result.runs);
  });
});
