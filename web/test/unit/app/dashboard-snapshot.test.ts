import { describe, expect, it } from 'vitest';
import { buildSnapshot, streamPhase, type SnapshotSources } from '../../../src/app/dashboard-snapshot.ts';
import { EventLog } from '../../../src/app/event-log.ts';
import { RejectionBackoff } from '../../../src/app/rejection-backoff.ts';
import { DEFAULT_SETTINGS } from '../../../src/app/settings.ts';
import type { SourceState } from '../../../src/capture/capture-source.ts';
import type { LinkState } from '../../../src/app/link-switch.ts';
import { NO_LINK, type MeasuredLink } from '../../../src/link/measured-link.ts';
import { PingStore } from '../../../src/metrics/ping-store.ts';
import { SampleStore } from '../../../src/metrics/sample-store.ts';
import type { ConnectionStatus } from '../../../src/transport/gateway-socket.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { deviceFrame, errorOutcome } from '../../support/outcomes.ts';
import { deviceSample, sample } from '../../support/samples.ts';

const open: ConnectionStatus = { state: 'open', attempt: 0 };
const reconnecting: ConnectionStatus = { state: 'reconnecting', attempt: 2 };
const LTE: MeasuredLink = { spec: 'lte', label: 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated', emulated: true };
const ready: SourceState = { kind: 'camera', status: 'ready', devices: [], generation: 1 };
const starting: SourceState = { ...ready, status: 'starting' };

describe('streamPhase', () => {
  it('names why frames are not going out, a pause first', () => {
    expect(streamPhase(false, open, ready)).toBe('streaming');
    expect(streamPhase(true, reconnecting, starting)).toBe('paused');
    expect(streamPhase(false, reconnecting, starting)).toBe('waiting-gateway');
    expect(streamPhase(false, open, starting)).toBe('waiting-source');
  });
});

describe('buildSnapshot', () => {
  function sources() {
    const samples = new SampleStore();
    const pings = new PingStore();
    const errorLog = new EventLog();
    const backoff = new RejectionBackoff(new FakeClock());
    const parts: SnapshotSources = {
      settings: () => ({ ...DEFAULT_SETTINGS, codec: 'json', statsWindow: 2 }),
      transports: {
        status: open,
        mode: 'websocket',
        rtc: undefined,
        nextCodec: () => 'json',
        framesSent: 5,
        lossTimeoutMs: 1000,
        unmatched: 0,
        overtaken: 0,
        keyframeRequests: 0,
      },
      codecChoices: () => [],
      models: { state: { status: 'loading' } },
      source: { current: ready },
      answers: { latest: undefined },
      samples,
      pings,
      errorLog,
      noticeLog: new EventLog(),
      encoder: { path: 'worker' },
      backoff,
      loop: { lastEncode: { width: 400, height: 300, bytes: 20_000, encodeMs: 4 } },
      onDevice: { state: { status: 'off' } },
      dispatcher: { nextRoute: () => 'gateway', inFlight: 0 },
      tracks: { summary: () => ({ leadMs: 120, unique: 3, counts: [{ label: 'dog', count: 2 }] }) },
      detections: { size: 7 },
      links: { state: { via: 'websocket', inForce: NO_LINK, target: 'none', switching: false }, seen: () => [NO_LINK] },
      now: () => 5000,
    };
    return { parts, samples, pings, errorLog, backoff };
  }

  it('reads every part at the moment it is built', () => {
    const { parts, samples, pings, backoff } = sources();
    for (let i = 0; i < 5; i++) samples.add(sample('json', 1000 + i * 100, 10 * (i + 1)));
    pings.add({ at: 4900, rttMs: 3, link: 'none' });
    backoff.track(errorOutcome(deviceFrame(1, 0, { path: 'gateway' }), 0, 'overloaded', 'busy'));
    const snapshot = buildSnapshot(parts);
    expect(snapshot).toMatchObject({
      phase: 'streaming',
      pingMs: 3,
      nextCodec: 'json',
      samplesKept: 5,
      encoderPath: 'worker',
      rejectedStreak: 1,
      lastRejection: { code: 'overloaded' },
      lastEncode: { width: 400 },
      tracking: { leadMs: 120, unique: 3, counts: [{ label: 'dog', count: 2 }] },
      detectionsKept: 7,
    });
    // Stats over the chosen window: the last 2 json samples only; JSON and MessagePack always have a column.
    expect(snapshot.codecColumns.map((column) => [column.id, column.active, column.stats.count])).toEqual([
      ['json', true, 2],
      ['msgpack', false, 0],
    ]);
    expect(snapshot.chart.frames).toHaveLength(5);
    expect(snapshot.chart.frames.at(-1)!.t).toBe(-3.6); // the last answer, 3.6 s before now
  });

  it('copies the logs, so a snapshot does not change after it was handed out', () => {
    const { parts, errorLog } = sources();
    errorLog.add('overloaded', 'busy');
    const snapshot = buildSnapshot(parts);
    errorLog.add('internal', 'oops');
    errorLog.clear();
    expect(snapshot.errors.map((entry) => entry.code)).toEqual(['overloaded']);
  });

  it('streams on this device without the gateway once the model is ready, and waits for it before', () => {
    expect(streamPhase(false, reconnecting, ready, 'device', true)).toBe('streaming');
    expect(streamPhase(false, open, ready, 'device', false)).toBe('waiting-device');
    expect(streamPhase(false, reconnecting, ready, 'both', true)).toBe('streaming');
    expect(streamPhase(false, open, ready, 'both', false)).toBe('streaming');
    expect(streamPhase(false, reconnecting, ready, 'both', false)).toBe('waiting-gateway');
    expect(streamPhase(true, open, ready, 'device', false)).toBe('paused');
  });

  it("reports each route's stats, the next route, the on-device state and the verdict", () => {
    const { parts, samples } = sources();
    for (let i = 0; i < 6; i++) {
      samples.add(sample('msgpack', 4000 + i * 100, 20));
      samples.add(deviceSample(4050 + i * 100, 60));
    }
    const snapshot = buildSnapshot({
      ...parts,
      settings: () => ({ ...DEFAULT_SETTINGS, statsWindow: 500, runOn: 'both' }),
      onDevice: { state: { status: 'ready', backend: 'wasm', threads: 2 } },
      dispatcher: { nextRoute: () => 'device', inFlight: 1 },
    });
    expect(snapshot).toMatchObject({ runOn: 'both', nextRoute: 'device', onDevice: { status: 'ready', threads: 2 }, inFlight: 1 });
    expect(snapshot.routes.gateway.count).toBe(6);
    expect(snapshot.routes.device.count).toBe(6);
    expect(snapshot.comparison).toMatchObject({ faster: 'gateway', gatewayMs: 20, deviceMs: 60, current: true });
    expect(snapshot.chart.device).toHaveLength(6);
  });

  it('gives video chunks and each WebRTC path a column of its own, and the WebRTC figures while WebRTC is in use', () => {
    const { parts, samples } = sources();
    samples.add(sample('vp8', 1000, 30));
    samples.add(sample('msgpack', 1100, 40, 'ok', { transport: 'webrtc' }));
    samples.add(sample('vp8', 1200, 50, 'ok', { transport: 'webrtc' }));
    const snapshot = buildSnapshot({
      ...parts,
      settings: () => ({ ...DEFAULT_SETTINGS, codec: 'vp8', transport: 'webrtc', statsWindow: 500 }),
      transports: { ...parts.transports, mode: 'track', rtc: { at: 4000, figures: { rttMs: 3, framesEncoded: 90 } }, unmatched: 1 },
    });
    expect(snapshot.codecColumns.map((column) => [column.id, column.label, column.active, column.stats.count])).toEqual([
      ['vp8', 'VP8', false, 1],
      ['webrtc-msgpack', 'WebRTC channel · MessagePack', false, 1],
      ['webrtc-vp8', 'WebRTC track · VP8', true, 1],
      ['json', 'JSON + Base64', false, 0],
      ['msgpack', 'MessagePack', false, 0],
    ]);
    expect(snapshot.transport).toEqual({
      transport: 'webrtc',
      mode: 'track',
      rtc: { at: 4000, figures: { rttMs: 3, framesEncoded: 90 } },
      unmatched: 1,
      overtaken: 0,
      keyframeRequests: 0,
    });
  });

  it('shows only what crossed the link in force, and each link measured side by side', () => {
    const { parts, samples, pings } = sources();
    for (let i = 0; i < 4; i++) samples.add(sample('msgpack', 1000 + i * 100, 5, 'ok', { link: 'none' }));
    for (let i = 0; i < 3; i++) samples.add(sample('msgpack', 2000 + i * 100, 90, 'ok', { link: 'lte' }));
    samples.add(deviceSample(2500, 60));
    pings.add({ at: 1500, rttMs: 0.4, link: 'none' });
    pings.add({ at: 2500, rttMs: 41, link: 'lte' });
    pings.add({ at: 2600, rttMs: 0.3, link: 'none' });
    const state: LinkState = { via: 'websocket', inForce: LTE, target: 'lte', switching: false };
    const snapshot = buildSnapshot({
      ...parts,
      settings: () => ({ ...DEFAULT_SETTINGS, codec: 'msgpack', statsWindow: 500 }),
      links: { state, seen: () => [NO_LINK, LTE] },
    });
    expect(snapshot.link).toBe(state);
    expect(snapshot.measuredOn).toBe(LTE);
    expect(snapshot.codecColumns.find((column) => column.id === 'msgpack')!.stats).toMatchObject({ count: 3, full: { p50: 90 } });
    expect(snapshot.routes.gateway.count).toBe(3);
    // This device's frames cross no link: they stay.
    expect(snapshot.routes.device.count).toBe(1);
    expect(snapshot.chart.frames.map((row) => row.fullMsgpack)).toEqual([90, 90, 90]);
    expect(snapshot.chart.device).toHaveLength(1);
    expect(snapshot.pingMs).toBe(41);
    expect(snapshot.chart.pings).toHaveLength(1);
    expect(snapshot.links.map(({ link, stats }) => [link.label, stats.count, stats.full.p50])).toEqual([
      ['No link emulation', 4, 5],
      [LTE.label, 3, 90],
    ]);
  });

  it("measures WebRTC on the peer's link, never pooled with what crossed another", () => {
    const { parts, samples, pings } = sources();
    const LOSSY: MeasuredLink = { spec: 'delay=20ms,loss=1%', label: 'Custom · 40 ms RTT, 1% loss, emulated', emulated: true };
    for (let i = 0; i < 2; i++) samples.add(sample('msgpack', 1000 + i * 100, 90, 'ok', { link: 'lte' }));
    for (let i = 0; i < 4; i++) samples.add(sample('msgpack', 1500 + i * 100, 6, 'ok', { transport: 'webrtc', link: 'none' }));
    for (let i = 0; i < 3; i++) samples.add(sample('msgpack', 2000 + i * 100, 48, 'ok', { transport: 'webrtc', link: LOSSY.spec }));
    pings.add({ at: 2500, rttMs: 41, link: 'lte' });
    pings.add({ at: 2550, rttMs: 0.5, link: 'none' });
    pings.add({ at: 2600, rttMs: 43, link: LOSSY.spec });
    const state: LinkState = { via: 'webrtc', inForce: LOSSY, target: LOSSY.spec, switching: false };
    const snapshot = buildSnapshot({
      ...parts,
      settings: () => ({ ...DEFAULT_SETTINGS, codec: 'msgpack', transport: 'webrtc', statsWindow: 500 }),
      transports: { ...parts.transports, mode: 'data-channel' },
      links: { state, seen: () => [NO_LINK, LTE, LOSSY] },
    });
    expect(snapshot.link).toBe(state);
    expect(snapshot.measuredOn).toBe(LOSSY);
    expect(snapshot.codecColumns.map((column) => [column.id, column.stats.count])).toEqual([
      ['msgpack', 0],
      ['webrtc-msgpack', 3],
      ['json', 0],
    ]);
    expect(snapshot.routes.gateway.count).toBe(3);
    expect(snapshot.pingMs).toBe(43);
    expect(snapshot.links.map(({ link, stats }) => [link.spec, stats.count])).toEqual([
      ['lte', 2],
      ['none', 4],
      [LOSSY.spec, 3],
    ]);
  });
});
