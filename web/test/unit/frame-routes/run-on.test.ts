import { describe, expect, it } from 'vitest';
import { routeForFrame, RUN_ON_CHOICES, RUN_ON_LABELS, usesDevice, usesGateway } from '../../../src/frame-routes/run-on.ts';

const both = { gateway: true, device: true };

describe('run-on policy', () => {
  it('offers exactly Gateway, This device and Both', () => {
    expect(RUN_ON_CHOICES.map((choice) => RUN_ON_LABELS[choice])).toEqual(['Gateway', 'This device', 'Both']);
  });

  it('sends every frame to the chosen route, and none while that route is unavailable', () => {
    for (let turn = 0; turn < 4; turn++) {
      expect(routeForFrame(turn, 'gateway', both)).toBe('gateway');
      expect(routeForFrame(turn, 'device', both)).toBe('device');
    }
    expect(routeForFrame(0, 'gateway', { gateway: false, device: true })).toBeUndefined();
    expect(routeForFrame(0, 'device', { gateway: true, device: false })).toBeUndefined();
  });

  it('alternates per frame in Both, the gateway first', () => {
    expect([0, 1, 2, 3, 4].map((turn) => routeForFrame(turn, 'both', both))).toEqual(['gateway', 'device', 'gateway', 'device', 'gateway']);
  });

  it('in Both, uses whichever route is available while the other is not (model loading, gateway down)', () => {
    expect([0, 1].map((turn) => routeForFrame(turn, 'both', { gateway: true, device: false }))).toEqual(['gateway', 'gateway']);
    expect([0, 1].map((turn) => routeForFrame(turn, 'both', { gateway: false, device: true }))).toEqual(['device', 'device']);
    expect(routeForFrame(0, 'both', { gateway: false, device: false })).toBeUndefined();
  });

  it('says which routes a setting uses', () => {
    expect(RUN_ON_CHOICES.map(usesDevice)).toEqual([false, true, true]);
    expect(RUN_ON_CHOICES.map(usesGateway)).toEqual([true, false, true]);
  });
});
