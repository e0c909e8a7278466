/**
 * The soak's yardstick against a real gateway child process: two naive stop-and-wait clients side by side,
 * every frame detected (closed-loop frames are always queued), one server time per frame.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '@sightline/harness/process';
import { measureServerTime } from '../../../reliability/server-time.ts';
import { cameraFrame } from '../../../reliability/scenario-frames.ts';

let gateway: GatewayProcess;

beforeAll(async () => {
  gateway = await startGatewayProcess();
});

afterAll(async () => {
  await gateway?.stop();
});

describe('service time of a frame beside another', () => {
  it('measures every frame of two clients side by side', async () => {
    const timing = await measureServerTime(gateway.url, await cameraFrame(), { clients: 2, frames: 5, warmup: 1 });
    expect(timing).toMatchObject({ clients: 2, frames: 10, notDetected: 0 });
    expect(timing.serverMs.count).toBe(10);
    expect(timing.serverMs.p50).toBeGreaterThan(0);
    // Each round trip holds its frame's server time, so every order statistic does too.
    expect(timing.latencyMs.p50).toBeGreaterThanOrEqual(timing.serverMs.p50);
  });
});
