/**
 * The peer link against a fake RTCPeerConnection and a fake gateway (fetch): what it offers, when it posts,
 * how it greets, sends, reconnects, which link it asks for and ends. The real browser and gateway meet in the e2e
 * suite (18-webrtc, 19-webrtc-link).
 */
import { describe, expect, it } from 'vitest';
import { encodeMessage } from '@sightline/shared/codec';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import type { ConnectionStatus } from '../../../src/transport/gateway-socket.ts';
import { DATA_CHANNEL_ROOM_BYTES, PeerLink, type PeerMode } from '../../../src/webrtc/peer-link.ts';
import type { EncodedFrameListener } from '../../../src/webrtc/encoded-frame-tap.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { FakePeer, type FakeChannel } from '../../support/fake-peer.ts';
import { detectionsMessage, hello } from '../../support/gateway-messages.ts';

interface Refusal {
  status: number;
  error: string;
  reason: string;
}

function setup(options: { refuse?: Refusal; link?: () => string; camera?: () => string } = {}) {
  FakePeer.all.length = 0;
  const clock = new FakeClock(1000);
  const requests: { method: string; url: string; body?: unknown }[] = [];
  let sessions = 0;
  const fetch = async (url: string, init?: RequestInit): Promise<Response> => {
    const method = init?.method ?? 'GET';
    requests.push({ method, url, body: init?.body });
    if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { link: '<stun:stun.test>; rel="ice-server"' } });
    if (method === 'DELETE') return new Response(null, { status: 200 });
    if (options.refuse) {
      const { status, error, reason } = options.refuse;
      return new Response(JSON.stringify({ error, reason }), { status });
    }
    return new Response(`answer ${++sessions}`, { status: 201, headers: { location: `/whip/s${sessions}` } });
  };
  const taps: EncodedFrameListener[] = [];
  const link = new PeerLink({
    whipUrl: 'http://gateway.test/whip',
    ...(options.link ? { link: options.link } : {}),
    ...(options.camera ? { camera: options.camera } : {}),
    clock,
    wallClock: () => 50_000,
    fetch,
    createPeerConnection: (configuration) => new FakePeer(configuration) as unknown as RTCPeerConnection,
    tap: (_sender, listener) => {
      taps.push(listener);
      return () => undefined;
    },
    timeOrigin: 1_700_000_000_000,
  });
  const statuses: ConnectionStatus[] = [];
  link.statusChanged.subscribe((status) => statuses.push(status));
  return { clock, link, requests, taps, statuses, peer: () => FakePeer.all.at(-1)! };
}

/** Lets the link's promise chain (pre-flight, offer, POST, answer) run. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setTimeout(resolve, 0));
};

async function connect(h: ReturnType<typeof setup>, mode: PeerMode, label: string): Promise<FakeChannel> {
  h.link.start(mode);
  await settle();
  h.peer().gathered();
  await settle();
  const channel = h.peer().channel(label);
  channel.readyState = 'open';
  channel.receive(encodeMessage(hello, 'json'));
  return channel;
}

describe('PeerLink', () => {
  it('offers an unordered, unretransmitted frames channel, posts the offer once gathered, and is open once greeted on it', async () => {
    const h = setup();
    h.link.start({ kind: 'data' });
    await settle();
    const peer = h.peer();
    expect(peer.configuration).toMatchObject({ iceServers: [{ urls: 'stun:stun.test' }], bundlePolicy: 'max-bundle' });
    // Beside it a reliable control channel, whose hello greets if the frames channel's is lost.
    expect(peer.channels.map((channel) => [channel.label, channel.init])).toEqual([
      ['frames', { ordered: false, maxRetransmits: 0 }],
      ['control', undefined],
    ]);
    // Nothing posted before gathering completes: the gateway does no trickle ICE.
    expect(h.requests.map((request) => request.method)).toEqual(['OPTIONS']);
    peer.gathered();
    await settle();
    expect(h.requests.at(-1)).toMatchObject({ method: 'POST', body: 'offer 1 candidates' });
    expect(peer.remote).toEqual({ type: 'answer', sdp: 'answer 1' });
    expect(h.link.status.state).toBe('connecting');
    const channel = peer.channel('frames');
    channel.readyState = 'open';
    const messages: string[] = [];
    h.link.messages.subscribe(({ message }) => messages.push(message.type));
    channel.receive(encodeMessage(hello, 'json'));
    expect(h.link.status).toMatchObject({ state: 'open', hello: { protocol: hello.protocol } });
    expect(h.link.isOpen).toBe(true);
    expect(messages).toEqual(['hello']);
    expect(h.link.send(new Uint8Array([1, 2]))).toBe(true);
    expect(channel.sent).toHaveLength(1);
  });

  it('is greeted by the control channel when the hello on the frames channel is lost, and takes one hello only', async () => {
    const h = setup();
    h.link.start({ kind: 'data' });
    await settle();
    h.peer().gathered();
    await settle();
    const messages: string[] = [];
    h.link.messages.subscribe(({ message }) => messages.push(message.type));
    const control = h.peer().channel('control');
    control.readyState = 'open';
    control.receive(encodeMessage(hello, 'json'));
    expect(h.link.status).toMatchObject({ state: 'open', hello: { protocol: hello.protocol } });
    // The frames channel's hello arriving after all changes nothing.
    h.peer().channel('frames').readyState = 'open';
    h.peer().channel('frames').receive(encodeMessage(hello, 'json'));
    expect(messages).toEqual(['hello']);
    expect(h.link.send(new Uint8Array([1]))).toBe(true);
    expect(h.peer().channel('frames').sent).toHaveLength(1);
    expect(control.sent).toHaveLength(0);
  });

  it('has room for a frame only while the channel holds little, and says when it drains', async () => {
    const h = setup();
    const channel = await connect(h, { kind: 'data' }, 'frames');
    let room = 0;
    h.link.roomChanged.subscribe(() => room++);
    channel.bufferedAmount = DATA_CHANNEL_ROOM_BYTES + 1;
    expect(h.link.hasRoom()).toBe(false);
    channel.bufferedAmount = 0;
    channel.onbufferedamountlow?.();
    expect([h.link.hasRoom(), room]).toEqual([true, 1]);
    // A message larger than the peer takes is refused with the reason, not sent.
    const refusals: string[] = [];
    h.link.refused.subscribe((message) => refusals.push(message));
    expect(h.link.send(new Uint8Array(300_000))).toBe(false);
    expect(refusals[0]).toMatch(/larger than the data channel takes \(256 KiB\)/);
  });

  it('reconnects with backoff when the connection fails, and ends the WHIP session it leaves', async () => {
    const h = setup();
    await connect(h, { kind: 'data' }, 'frames');
    h.peer().state('failed');
    expect(h.link.status).toMatchObject({ state: 'reconnecting', attempt: 1, lastError: 'the peer connection failed' });
    expect(h.peer().closed).toBe(true);
    await settle();
    expect(h.requests.filter((request) => request.method === 'DELETE').map((request) => request.url)).toEqual([
      'http://gateway.test/whip/s1',
    ]);
    h.clock.advance(h.link.status.retryAt! - 50_000);
    await settle();
    expect(FakePeer.all).toHaveLength(2);
  });

  it("retries after the gateway's refusal, naming its reason", async () => {
    const h = setup({ refuse: { status: 503, error: 'too_many_peers', reason: 'the gateway is full' } });
    h.link.start({ kind: 'data' });
    await settle();
    h.peer().gathered();
    await settle();
    expect(h.link.status).toMatchObject({ state: 'reconnecting', lastError: 'WHIP 503: the gateway is full' });
  });

  it('asks for the link each session runs behind on its POST, and another link is another session', async () => {
    let link = 'lte';
    const h = setup({ link: () => link });
    await connect(h, { kind: 'data' }, 'frames');
    expect(h.requests.map((request) => [request.method, request.url])).toEqual([
      ['OPTIONS', 'http://gateway.test/whip'],
      ['POST', 'http://gateway.test/whip?link=lte'],
    ]);
    // The gateway keeps a session behind its link for its life: the old one is ended, a new one asks for the new link.
    link = 'bw=2mbit/10mbit,delay=40ms,loss=1%';
    h.link.reconnect();
    expect(h.link.status).toMatchObject({ state: 'connecting', attempt: 0 });
    expect(FakePeer.all[0]!.closed).toBe(true);
    await settle();
    h.peer().gathered();
    await settle();
    expect(FakePeer.all).toHaveLength(2);
    expect(h.requests.slice(2).map((request) => [request.method, request.url])).toEqual([
      ['DELETE', 'http://gateway.test/whip/s1'],
      ['OPTIONS', 'http://gateway.test/whip'],
      ['POST', 'http://gateway.test/whip?link=bw%3D2mbit%2F10mbit%2Cdelay%3D40ms%2Closs%3D1%25'],
    ]);
    // No link: the endpoint as it is.
    link = 'none';
    h.link.reconnect();
    await settle();
    h.peer().gathered();
    await settle();
    expect(h.requests.at(-1)).toMatchObject({ method: 'POST', url: 'http://gateway.test/whip' });
  });

  it('names the camera of its frames on every POST, and another camera is another session', async () => {
    let camera = 'door-1';
    const h = setup({ camera: () => camera });
    await connect(h, { kind: 'data' }, 'frames');
    expect(h.requests.at(-1)).toMatchObject({ method: 'POST', url: 'http://gateway.test/whip?camera=door-1' });
    camera = 'default';
    h.link.reconnect();
    await settle();
    h.peer().gathered();
    await settle();
    expect(h.requests.at(-1)).toMatchObject({ method: 'POST', url: 'http://gateway.test/whip' });
  });

  it('does not connect on reconnect() while stopped', async () => {
    const h = setup();
    h.link.reconnect();
    await settle();
    expect(FakePeer.all).toHaveLength(0);
    expect(h.link.status.state).toBe('closed');
  });

  it('says when the gateway refuses the link asked for, with its reason, once the attempt has failed', async () => {
    for (const refuse of [
      { status: 400, error: 'bad_link', reason: "bad value 'fast' for bw" },
      { status: 403, error: '403', reason: 'link emulation is only for clients on this machine, or with the access token' },
    ]) {
      const h = setup({ refuse, link: () => 'lte' });
      const refused: unknown[] = [];
      h.link.linkRefused.subscribe((refusal) => refused.push({ ...refusal, state: h.link.status.state }));
      h.link.start({ kind: 'data' });
      await settle();
      h.peer().gathered();
      await settle();
      expect(refused).toEqual([{ spec: 'lte', reason: refuse.reason, state: 'reconnecting' }]);
    }
  });

  it('does not blame the link for other refusals, nor when it asked for none', async () => {
    const cases = [
      { refuse: { status: 503, error: 'too_many_peers', reason: 'the gateway is full' }, link: 'lte' },
      { refuse: { status: 400, error: 'bad_sdp', reason: 'the offer has no media' }, link: 'lte' },
      { refuse: { status: 403, error: '403', reason: 'origin not allowed' }, link: 'none' },
    ];
    for (const { refuse, link } of cases) {
      const h = setup({ refuse, link: () => link });
      const refused: unknown[] = [];
      h.link.linkRefused.subscribe((refusal) => refused.push(refusal));
      h.link.start({ kind: 'data' });
      await settle();
      h.peer().gathered();
      await settle();
      expect(h.link.status).toMatchObject({ state: 'reconnecting', lastError: `WHIP ${refuse.status}: ${refuse.reason}` });
      expect(refused).toEqual([]);
    }
  });

  it('sends the camera as a track with the encoding asked for, reports its encoded frames and the detections channel', async () => {
    const h = setup();
    const track = { kind: 'video' };
    const mode: PeerMode = {
      kind: 'track',
      track: track as unknown as MediaStreamTrack,
      codec: 'vp8',
      encoding: { maxBitrateKbps: 800, scaleDownBy: 1.6, active: true },
    };
    await connect(h, mode, 'control');
    const peer = h.peer();
    expect(peer.channels.map((channel) => channel.label)).toEqual(['control', 'detections']);
    expect(peer.transceiver?.init).toEqual({
      direction: 'sendonly',
      sendEncodings: [{ active: true, maxBitrate: 800_000, scaleResolutionDownBy: 1.6 }],
    });
    const frames: unknown[] = [];
    h.link.encodedFrames.subscribe((frame) => frames.push(frame));
    h.taps[0]!({ rtpTimestamp: 9000, atEpochMs: 1_700_000_001_234, bytes: 800, key: true });
    expect(frames).toEqual([{ rtpTimestamp: 9000, sentAt: 1234, bytes: 800, key: true }]);
    const results: DetectionsMessage[] = [];
    h.link.detections.subscribe(({ message }) => results.push(message));
    const detections = detectionsMessage(1, {
      rtpTimestamp: 9000,
      detections: [],
      timings: { queueMs: 0, decodeMs: 0, preprocessMs: 0, inferenceMs: 0, postprocessMs: 0, serverMs: 0 },
    });
    peer.channel('detections').receive(JSON.stringify(detections));
    expect(results).toEqual([detections]);

    // A new bitrate, size or pause changes the sender's parameters on the same connection; another codec needs a new one.
    h.link.start({ ...mode, encoding: { maxBitrateKbps: 300, scaleDownBy: 1, active: false } });
    await settle();
    expect(FakePeer.all).toHaveLength(1);
    expect(peer.transceiver!.sender.parameters.encodings[0]).toMatchObject({
      active: false,
      maxBitrate: 300_000,
      scaleResolutionDownBy: 1,
    });
    h.link.start({ ...mode, codec: 'h264' });
    await settle();
    expect(FakePeer.all).toHaveLength(2);
    expect(peer.closed).toBe(true);
  });

  it('stop ends the session and stays closed', async () => {
    const h = setup();
    await connect(h, { kind: 'data' }, 'frames');
    h.link.stop();
    await settle();
    expect(h.link.status.state).toBe('closed');
    expect(h.link.mode).toBeUndefined();
    expect(h.requests.at(-1)).toMatchObject({ method: 'DELETE', url: 'http://gateway.test/whip/s1' });
    h.clock.advance(60_000);
    expect(FakePeer.all).toHaveLength(1);
  });
});
