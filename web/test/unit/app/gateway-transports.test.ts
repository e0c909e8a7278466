import { describe, expect, it } from 'vitest';
import { decodeClientMessage, type WireData } from '@sightline/shared/codec';
import { GatewayTransports } from '../../../src/app/gateway-transports.ts';
import { DEFAULT_SETTINGS, type StreamSettings } from '../../../src/app/settings.ts';
import type { SourceState } from '../../../src/capture/capture-source.ts';
import { Signal } from '../../../src/events/signal.ts';
import type { FrameOutcome } from '../../../src/frame-routes/frame-outcome.ts';
import { FrameSender } from '../../../src/transport/frame-sender.ts';
import type { ConnectionStatus, GatewaySocket, IncomingMessage } from '../../../src/transport/gateway-socket.ts';
import { transportMode } from '../../../src/transport/transports.ts';
import type { PeerLink, PeerMode } from '../../../src/webrtc/peer-link.ts';
import { RtpFrameLog } from '../../../src/webrtc/rtp-frame-log.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { hello } from '../../support/gateway-messages.ts';

/** A message link (the socket, or the peer's message session) that records what it was asked to do. */
class FakeMessageLink {
  readonly statusChanged = new Signal<ConnectionStatus>();
  readonly messages = new Signal<IncomingMessage>();
  readonly detections = new Signal<never>();
  readonly encodedFrames = new Signal<never>();
  readonly roomChanged = new Signal<void>();
  status: ConnectionStatus = { state: 'closed', attempt: 0 };
  readonly sent: WireData[] = [];
  readonly modes: (PeerMode | 'stopped')[] = [];
  mode: PeerMode | undefined;
  room = true;
  get isOpen(): boolean {
    return this.status.state === 'open';
  }
  open(): void {
    this.status = { state: 'open', attempt: 0, hello };
    this.statusChanged.emit(this.status);
  }
  send(data: WireData): boolean {
    if (!this.isOpen) return false;
    this.sent.push(data);
    return true;
  }
  hasRoom(): boolean {
    return this.room;
  }
  start(mode: PeerMode): void {
    this.mode = mode;
    this.modes.push(mode);
  }
  stop(): void {
    if (this.mode) this.modes.push('stopped');
    this.mode = undefined;
  }
  async stats(): Promise<undefined> {
    return undefined;
  }
  async receiveStats(): Promise<undefined> {
    return undefined;
  }
}

function setup() {
  const clock = new FakeClock();
  const socket = new FakeMessageLink();
  const peer = new FakeMessageLink();
  let id = 0;
  const nextId = () => ++id;
  const socketSender = new FrameSender({ send: (data) => socket.send(data), nextId, now: () => clock.now() });
  const peerSender = new FrameSender({ send: (data) => peer.send(data), nextId, now: () => clock.now(), transport: 'webrtc' });
  let settings: StreamSettings = { ...DEFAULT_SETTINGS, model: 'ssd' };
  const track = { kind: 'video' } as unknown as MediaStreamTrack;
  const source = {
    current: { kind: 'camera', status: 'ready', devices: [], generation: 1, width: 640, height: 480 } as SourceState,
    track: track as MediaStreamTrack | undefined,
    videoTrack() {
      return this.track;
    },
  };
  const transports = new GatewayTransports({
    socket: socket as unknown as GatewaySocket,
    socketSender,
    peer: peer as unknown as PeerLink,
    peerSender,
    log: new RtpFrameLog(),
    clock,
    nextId,
    settings: () => settings,
    source,
    modelInput: () => ({ width: 300, height: 300, resize: 'stretch' }),
  });
  const settled: FrameOutcome[] = [];
  transports.settled.subscribe((outcome) => settled.push(outcome));
  const change = (patch: Partial<StreamSettings>) => {
    settings = { ...settings, ...patch };
    for (const sender of [socketSender, peerSender]) sender.setPolicy({ codec: settings.codec, abMode: false, abEvery: 30 });
    transports.update();
  };
  transports.start();
  return { clock, socket, peer, transports, settled, change, source, track };
}

const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0]);
const request = { model: 'ssd', threshold: 0.5, skippedBefore: 0, capturedAt: 0 };

describe('transportMode', () => {
  it('is the data channel for JPEG over WebRTC, the track for video, and the socket otherwise or on this device alone', () => {
    expect(transportMode({ transport: 'websocket', codec: 'vp8', runOn: 'gateway' })).toBe('websocket');
    expect(transportMode({ transport: 'webrtc', codec: 'msgpack', runOn: 'gateway' })).toBe('data-channel');
    expect(transportMode({ transport: 'webrtc', codec: 'h264', runOn: 'both' })).toBe('track');
    expect(transportMode({ transport: 'webrtc', codec: 'vp8', runOn: 'device' })).toBe('websocket');
  });
});

describe('GatewayTransports', () => {
  it('sends on the socket by default, and on the data channel (with its pings) once WebRTC is chosen', () => {
    const h = setup();
    h.socket.open();
    expect(h.transports.mode).toBe('websocket');
    expect(h.peer.modes).toEqual([]);
    expect(h.transports.send(jpeg, request)).toMatchObject({ transport: 'websocket' });
    expect(h.transports.pingLink.isOpen).toBe(true);

    h.change({ transport: 'webrtc' });
    expect(h.transports.mode).toBe('data-channel');
    expect(h.peer.modes).toEqual([{ kind: 'data' }]);
    expect(h.transports.status.state).toBe('closed');
    expect(h.transports.pingLink.isOpen).toBe(false);
    h.peer.open();
    expect(h.transports.available).toBe(true);
    expect(h.transports.send(jpeg, request)).toMatchObject({ transport: 'webrtc', codec: 'msgpack' });
    expect(decodeClientMessage(h.peer.sent[0]!)).toMatchObject({ type: 'frame' });
    // The channel's buffer is full: no room for the next frame, whatever stop-and-wait says.
    h.peer.room = false;
    expect(h.transports.canSend()).toBe(false);
    h.change({ transport: 'websocket' });
    expect(h.peer.modes.at(-1)).toBe('stopped');
  });

  it('sends the camera as a track with the bitrate, the frame size as a scale-down and a pause as an inactive encoding', () => {
    const h = setup();
    h.change({ transport: 'webrtc', codec: 'vp8', videoBitrate: 500 });
    expect(h.transports.mode).toBe('track');
    expect(h.peer.modes.at(-1)).toEqual({
      kind: 'track',
      track: h.track,
      codec: 'vp8',
      // Auto for the 300x300 model from a 640x480 camera: 400x300.
      encoding: { maxBitrateKbps: 500, scaleDownBy: 1.6, active: true },
    });
    h.change({ paused: true, frameSize: 'native' });
    expect(h.peer.modes.at(-1)).toMatchObject({ encoding: { maxBitrateKbps: 500, scaleDownBy: 1, active: false } });
    // The track route takes nothing from the stream loop.
    h.peer.open();
    expect(h.transports.canSend()).toBe(false);
    // A still image has no track: nothing is sent, and the connection says why.
    h.source.track = undefined;
    h.change({ paused: false });
    expect(h.peer.modes.at(-1)).toBe('stopped');
    expect(h.transports.status).toMatchObject({ state: 'closed', lastError: expect.stringMatching(/still image/) });
  });

  it('gives up a data-channel frame once its answer is later than the answers have been, without a notice', () => {
    const h = setup();
    h.change({ transport: 'webrtc' });
    h.peer.open();
    h.transports.send(jpeg, request);
    h.clock.advance(h.transports.loss.timeoutMs + 1);
    h.transports.expire(60_000);
    expect(h.settled).toMatchObject([{ kind: 'lost', frame: { transport: 'webrtc' } }]);
    expect(h.settled[0]!.notice).toBeUndefined();
  });
});
