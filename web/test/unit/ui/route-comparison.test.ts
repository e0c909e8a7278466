import { describe, expect, it } from 'vitest';
import { SampleStore, type FrameStats } from '../../../src/metrics/sample-store.ts';
import { compareRoutes, formatRatio, MIN_FRAMES_TO_COMPARE, recentPingMs, STALE_AFTER_MS } from '../../../src/ui/route-comparison.ts';
import { deviceSample, sample } from '../../support/samples.ts';

/** Route stats from `count` frames of each route, `deviceMs` and `gatewayMs` each, in turn, the last at `end`. */
function stats(deviceMs: number, gatewayMs: number, count = 10, end = 10_000): { device: FrameStats; gateway: FrameStats } {
  const store = new SampleStore();
  for (let i = count; i > 0; i--) {
    store.add(sample('msgpack', end - i * 200 - 100, gatewayMs));
    store.add(deviceSample(end - (i - 1) * 200, deviceMs));
  }
  return { device: store.stats({ path: 'device' }, 30), gateway: store.stats({ path: 'gateway' }, 30) };
}

const now = 10_000;

describe('compareRoutes', () => {
  it('says plainly that the gateway is faster right now, and by how much, with the link round trip', () => {
    const { device, gateway } = stats(57, 21);
    const result = compareRoutes(device, gateway, { runOn: 'both', now, pingMs: 2.5 });
    expect(result).toMatchObject({ faster: 'gateway', deviceMs: 57, gatewayMs: 21, savedMs: 36, current: true });
    expect(result.ratio).toBeCloseTo(57 / 21, 6);
    expect(result.text).toBe(
      'The gateway is faster right now: 21.0 ms per frame through it (network round trip 2.50 ms) against 57.0 ms on this device, 2.7× as fast, 36.0 ms less per frame.',
    );
  });

  it('says when this device is faster', () => {
    const { device, gateway } = stats(30, 48);
    const result = compareRoutes(device, gateway, { runOn: 'both', now });
    expect(result.faster).toBe('device');
    expect(result.text).toBe(
      'This device is faster right now: 30.0 ms per frame here against 48.0 ms through the gateway, 1.6× as fast, 18.0 ms less per frame.',
    );
  });

  it('calls medians within 5 % of each other even', () => {
    const { device, gateway } = stats(40, 41);
    const result = compareRoutes(device, gateway, { runOn: 'both', now });
    expect(result.faster).toBe('even');
    expect(result.text).toBe('About even right now: 40.0 ms per frame on this device, 41.0 ms through the gateway.');
  });

  it('says "when last compared" once either route stopped being measured', () => {
    const { device, gateway } = stats(57, 21);
    const later = compareRoutes(device, gateway, { runOn: 'gateway', now: now + STALE_AFTER_MS + 20_000 });
    expect(later.current).toBe(false);
    expect(later.text).toMatch(/^The gateway is faster when last compared, 35 s ago:/);
    expect(compareRoutes(device, gateway, { runOn: 'gateway', now: now + 600_000 }).text).toMatch(/10 min ago/);
  });

  it('asks for Both, or counts the frames still needed, until each route has enough', () => {
    const none = new SampleStore();
    const empty = { device: none.stats({ path: 'device' }, 30), gateway: none.stats({ path: 'gateway' }, 30) };
    const hint = compareRoutes(empty.device, empty.gateway, { runOn: 'gateway', now });
    expect(hint).toEqual({ current: false, text: expect.stringMatching(/^Pick Run on: Both to compare/) });
    const { device, gateway } = stats(50, 20, 2);
    expect(compareRoutes(device, gateway, { runOn: 'both', now }).text).toBe(
      `Measuring both paths: ${MIN_FRAMES_TO_COMPARE - 2} more on this device and ${MIN_FRAMES_TO_COMPARE - 2} more through the gateway before comparing.`,
    );
  });
});

describe('formatting', () => {
  it('ratios with two decimals below 2, one above', () => {
    expect(formatRatio(1.15)).toBe('1.15×');
    expect(formatRatio(1.5)).toBe('1.5×');
    expect(formatRatio(2.714)).toBe('2.7×');
  });

  it('the median of the last pings', () => {
    expect(recentPingMs([])).toBeUndefined();
    expect(recentPingMs([100, 1, 3, 2])).toBe(2.5);
    expect(recentPingMs([100, 1, 3, 2], 3)).toBe(2);
  });
});
