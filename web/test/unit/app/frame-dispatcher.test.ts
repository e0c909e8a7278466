import { describe, expect, it } from 'vitest';
import { FrameDispatcher, type DeviceRunOptions } from '../../../src/app/frame-dispatcher.ts';
import type { RunOn } from '../../../src/app/run-on.ts';
import type { DeviceFrame } from '../../../src/inference/on-device-engine.ts';
import { FrameSender } from '../../../src/transport/frame-sender.ts';

/** The on-device engine as the dispatcher sees it: ready or not, one frame at a time. */
class FakeDevice {
  ready = true;
  running: (DeviceFrame & { options: DeviceRunOptions }) | undefined;
  readonly runs: DeviceFrame[] = [];
  get busy(): boolean {
    return this.running !== undefined;
  }
  run(id: number, image: Uint8Array, options: DeviceRunOptions): DeviceFrame | undefined {
    if (!this.ready || this.running) return undefined;
    const frame = {
      id,
      model: 'm',
      sentAt: 0,
      bytes: image.byteLength,
      threshold: options.threshold,
      skippedBefore: options.skippedBefore,
    };
    this.running = { ...frame, options };
    this.runs.push(frame);
    return frame;
  }
  finish(): void {
    this.running = undefined;
  }
}

function setup(runOn: RunOn, maxInFlight = 1) {
  let id = 0;
  const nextId = () => ++id;
  const link = { isOpen: true };
  const gateway = new FrameSender({ send: () => true, nextId, maxInFlight });
  const device = new FakeDevice();
  const settings = { runOn };
  const dispatcher = new FrameDispatcher({ gateway, link, device, runOn: () => settings.runOn, nextId, defaultThreshold: 0.5 });
  const image = new Uint8Array(100);
  /** Answers the gateway's oldest pending frame. */
  const answerGateway = (frameId: number) => gateway.handleAnswer({ type: 'dropped', id: frameId, reason: 'superseded' }, 10, 0);
  return { dispatcher, gateway, device, link, settings, image, answerGateway };
}

describe('FrameDispatcher', () => {
  it('Gateway: every frame goes to the frame sender, with its flow control', () => {
    const h = setup('gateway', 2);
    expect(h.dispatcher.sendFrame(h.image, { threshold: 0.4 })).toBeDefined();
    expect(h.dispatcher.sendFrame(h.image, { threshold: 0.4 })).toBeDefined();
    expect(h.dispatcher.canSend()).toBe(false);
    expect(h.gateway.inFlight).toBe(2);
    expect(h.device.runs).toHaveLength(0);
  });

  it('This device: every frame goes to the engine, one at a time, with the threshold and skips; the socket does not matter', () => {
    const h = setup('device');
    h.link.isOpen = false;
    expect(h.dispatcher.isOpen).toBe(true);
    const sent = h.dispatcher.sendFrame(h.image, { threshold: 0.3, skippedBefore: 2 });
    expect(sent).toMatchObject({ threshold: 0.3, skippedBefore: 2, bytes: 100 });
    expect(h.dispatcher.canSend()).toBe(false);
    h.device.finish();
    expect(h.dispatcher.sendFrame(h.image, {})).toMatchObject({ threshold: 0.5 });
    expect(h.gateway.framesSent).toBe(0);
  });

  it('This device: nowhere to send while the model is loading', () => {
    const h = setup('device');
    h.device.ready = false;
    expect(h.dispatcher.isOpen).toBe(false);
    expect(h.dispatcher.nextPath()).toBeUndefined();
    expect(h.dispatcher.sendFrame(h.image, {})).toBeUndefined();
  });

  it('Both: alternates gateway, device, gateway…, each frame waiting for the previous on either path', () => {
    const h = setup('both', 4);
    const paths: string[] = [];
    for (let i = 0; i < 6; i++) {
      const path = h.dispatcher.nextPath()!;
      const sent = h.dispatcher.sendFrame(h.image, {})!;
      paths.push(path);
      // Nothing else goes until this one is answered, even with room in the gateway's window.
      expect(h.dispatcher.canSend()).toBe(false);
      if (path === 'gateway') h.answerGateway(sent.id);
      else h.device.finish();
    }
    expect(paths).toEqual(['gateway', 'device', 'gateway', 'device', 'gateway', 'device']);
  });

  it('Both: the gateway alone while the model loads, then in turn; a new setting starts with the gateway again', () => {
    const h = setup('both');
    h.device.ready = false;
    const first = h.dispatcher.sendFrame(h.image, {})!;
    expect(h.gateway.isPending(first.id)).toBe(true);
    h.answerGateway(first.id);
    h.device.ready = true;
    // Turn 1: this device's.
    expect(h.dispatcher.nextPath()).toBe('device');
    h.dispatcher.reset();
    expect(h.dispatcher.nextPath()).toBe('gateway');
  });
});
