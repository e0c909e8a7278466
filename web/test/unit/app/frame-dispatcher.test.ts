import { describe, expect, it } from 'vitest';
import { FrameDispatcher } from '../../../src/app/frame-dispatcher.ts';
import { Signal } from '../../../src/events/signal.ts';
import type { FrameOutcome, SentFrame } from '../../../src/frame-routes/frame-outcome.ts';
import type { FrameRequest, RoutePort } from '../../../src/frame-routes/route-port.ts';
import type { RunOn } from '../../../src/frame-routes/run-on.ts';
import { FrameSender } from '../../../src/transport/frame-sender.ts';
import { GatewayRoute } from '../../../src/transport/gateway-route.ts';
import { FakeLink } from '../../support/fake-link.ts';
import { deviceFrame, deviceResult } from '../../support/outcomes.ts';

/** A route as the dispatcher sees it (this device's, say): available or not, one frame at a time. */
class FakeRoute implements RoutePort {
  readonly id = 'device';
  readonly changed = new Signal<void>();
  readonly settled = new Signal<FrameOutcome>();
  available = true;
  running: SentFrame | undefined;
  readonly runs: (SentFrame & { request: FrameRequest })[] = [];
  private nextId = 1000;
  get inFlight(): number {
    return this.running ? 1 : 0;
  }
  canSend(): boolean {
    return this.available && !this.running;
  }
  send(_image: Uint8Array, request: FrameRequest): SentFrame | undefined {
    if (!this.canSend()) return undefined;
    const frame = deviceFrame(++this.nextId, 0, { threshold: request.threshold, skippedBefore: request.skippedBefore });
    this.running = frame;
    this.runs.push({ ...frame, request });
    return frame;
  }
  finish(): void {
    const frame = this.running!;
    this.running = undefined;
    this.settled.emit({ frame, kind: 'ok', answeredAt: 0, result: deviceResult() });
  }
  setAvailable(available: boolean): void {
    this.available = available;
    this.changed.emit();
  }
}

function setup(runOn: RunOn, maxInFlight = 1) {
  let id = 0;
  const link = new FakeLink();
  link.open();
  const sender = new FrameSender({ send: () => true, nextId: () => ++id, maxInFlight });
  const gateway = new GatewayRoute(link, sender);
  const device = new FakeRoute();
  const settings = { runOn };
  const dispatcher = new FrameDispatcher({ routes: { gateway, device }, runOn: () => settings.runOn });
  let wakeUps = 0;
  dispatcher.changed.subscribe(() => wakeUps++);
  const image = new Uint8Array(100);
  const request = (overrides: Partial<FrameRequest> = {}): FrameRequest => ({
    model: 'ssd',
    threshold: 0.5,
    skippedBefore: 0,
    capturedAt: 0,
    ...overrides,
  });
  /** The gateway answers one of its frames. */
  const answerGateway = (frameId: number) => link.receive({ type: 'dropped', id: frameId, reason: 'superseded' });
  return { dispatcher, gateway, sender, device, link, settings, image, request, answerGateway, wakeUps: () => wakeUps };
}

describe('FrameDispatcher', () => {
  it('Gateway: every frame goes to the gateway route, with its flow control', () => {
    const h = setup('gateway', 2);
    expect(h.dispatcher.sendFrame(h.image, h.request())).toMatchObject({ path: 'gateway' });
    expect(h.dispatcher.sendFrame(h.image, h.request())).toBeDefined();
    expect(h.dispatcher.canSend()).toBe(false);
    expect(h.dispatcher.inFlight).toBe(2);
    expect(h.device.runs).toHaveLength(0);
  });

  it('This device: every frame goes to that route, one at a time, with the threshold and skips; the socket does not matter', () => {
    const h = setup('device');
    h.link.drop();
    expect(h.dispatcher.isOpen).toBe(true);
    const sent = h.dispatcher.sendFrame(h.image, h.request({ threshold: 0.3, skippedBefore: 2 }));
    expect(sent).toMatchObject({ path: 'device', threshold: 0.3, skippedBefore: 2 });
    expect(h.dispatcher.canSend()).toBe(false);
    h.device.finish();
    expect(h.dispatcher.sendFrame(h.image, h.request())).toBeDefined();
    expect(h.sender.framesSent).toBe(0);
  });

  it('This device: nowhere to send while the model is loading', () => {
    const h = setup('device');
    h.device.available = false;
    expect(h.dispatcher.isOpen).toBe(false);
    expect(h.dispatcher.nextRoute()).toBeUndefined();
    expect(h.dispatcher.sendFrame(h.image, h.request())).toBeUndefined();
  });

  it('Both: alternates gateway, device, gateway…, each frame waiting for the previous on either route', () => {
    const h = setup('both', 4);
    const routes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const route = h.dispatcher.nextRoute()!;
      const sent = h.dispatcher.sendFrame(h.image, h.request())!;
      routes.push(route);
      // Nothing else goes until this one is answered, even with room in the gateway's window.
      expect(h.dispatcher.canSend()).toBe(false);
      if (route === 'gateway') h.answerGateway(sent.id);
      else h.device.finish();
    }
    expect(routes).toEqual(['gateway', 'device', 'gateway', 'device', 'gateway', 'device']);
  });

  it('Both: the gateway alone while the model loads, then in turn; a new setting starts with the gateway again', () => {
    const h = setup('both');
    h.device.available = false;
    const first = h.dispatcher.sendFrame(h.image, h.request())!;
    expect(h.sender.isPending(first.id)).toBe(true);
    h.answerGateway(first.id);
    h.device.available = true;
    // Turn 1: this device's.
    expect(h.dispatcher.nextRoute()).toBe('device');
    h.dispatcher.reset();
    expect(h.dispatcher.nextRoute()).toBe('gateway');
  });

  it('says when the next frame may go: a route became available or unavailable, or settled a frame', () => {
    const h = setup('both');
    const sent = h.dispatcher.sendFrame(h.image, h.request())!;
    expect(h.wakeUps()).toBe(0);
    h.answerGateway(sent.id);
    expect(h.wakeUps()).toBe(1);
    h.device.setAvailable(false);
    h.link.drop();
    h.link.open();
    expect(h.wakeUps()).toBe(4);
  });

  it('asks the route the next frame takes how to encode it: the gateway its codec, this device a JPEG', () => {
    const h = setup('both');
    h.device.setAvailable(true);
    h.sender.setPolicy({ codec: 'vp8', abMode: false, abEvery: 30 });
    expect(h.dispatcher.nextFormat()).toEqual({ kind: 'video', codec: 'vp8', keyFrame: true });
    h.dispatcher.sendFrame(h.image, h.request({ video: { codec: 'vp8', key: true, seq: 1, width: 4, height: 4 } }));
    h.answerGateway(1);
    expect(h.dispatcher.nextRoute()).toBe('device');
    expect(h.dispatcher.nextFormat()).toEqual({ kind: 'jpeg' });
  });
});
