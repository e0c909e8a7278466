/**
 * The Python WebRTC peer (baselines/webrtc/whip_server.py) as the benchmark starts it, a child process on
 * loopback, driven by the aiortc sender as a WHIP publisher (webrtc/python/webrtc_sender.py): a VP8 track of the fixture photos comes back
 * as `detections` on the `detections` channel with the right labels, each naming its frame by the RTP
 * timestamp it carried (across a wrap of the 32-bit clock), in both modes; the frame protocol on a `frames`
 * channel; WHIP's refusals; the peer bound, and a vanished peer cleaned up with its UDP sockets. Nothing here
 * depends on how fast the machine is: the timeouts only bound a failure.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { expectedLabels, photoPath } from '@sightline/shared/fixtures';
import type { DetectionsMessage } from '@sightline/shared/protocol';
import { validateServerMessage } from '@sightline/shared/validation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebRtcPeer, WEBRTC_PEER_MODES, type WebRtcPeer, type WebRtcPeerMode } from '../../../baselines/webrtc-process.ts';
import { startPublisher, type Publisher, type PublisherEvent } from '../../support/whip-publisher.ts';

const MODEL = 'ssdlite-mobilenetv2-coco';
const PHOTOS = ['dog', 'horses', 'kite'];
const EXPECTED = expectedLabels();
const expected = (photo: string) => EXPECTED[`${photo}.jpg`]![MODEL]!;
const RTP_CLOCK = 2 ** 32;
/** The sender's first RTP timestamp: its clock wraps 10 frames (at 15 fps, 6000 ticks each) into the stream. */
const RTP_ORIGIN = RTP_CLOCK - 60_000;
const SLOW = 3 * 60_000;

interface VideoReply {
  photo: string | null;
  message: DetectionsMessage & { rtpTimestamp: number; backlog: number };
}

const videoReplies = (events: readonly PublisherEvent[]) =>
  events.filter((e) => e.event === 'detections').map((e) => ({ photo: e.photo, message: e.message }) as VideoReply);

const labelsOf = (message: DetectionsMessage) => new Set(message.detections.map((d) => d.label));
const hasAll = (message: DetectionsMessage, labels: readonly string[]) =>
  labels.every((entry) => entry.split('|').some((label) => labelsOf(message).has(label)));

/** How far the RTP clock moved forward from a to b (mod 2^32): between 1 and 2^31 - 1 when b is later. */
const forwardTicks = (a: number, b: number) => (((b - a) % RTP_CLOCK) + RTP_CLOCK) % RTP_CLOCK;

async function health(peer: WebRtcPeer): Promise<{ ok: boolean; mode: string; peers: { id: string }[] }> {
  const response = await fetch(`${peer.server.url}/healthz`);
  return (await response.json()) as { ok: boolean; mode: string; peers: { id: string }[] };
}

async function waitFor(condition: () => Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** UDP sockets the process holds: its socket descriptors that are in the UDP tables. */
function udpSocketsOf(pid: number): number {
  const udp = new Set(
    ['/proc/net/udp', '/proc/net/udp6'].flatMap((file) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(/\s+/)[9]),
    ),
  );
  return readdirSync(`/proc/${pid}/fd`)
    .map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      } catch {
        return undefined; // closed while listed
      }
    })
    .filter((inode) => inode !== undefined && udp.has(inode)).length;
}

function post(peer: WebRtcPeer, body: string, type = 'application/sdp') {
  return fetch(peer.whipUrl, { method: 'POST', headers: { 'content-type': type }, body });
}

const peers = new Map<WebRtcPeerMode, WebRtcPeer>();
const peer = (mode: WebRtcPeerMode) => peers.get(mode)!;
const publishers: Publisher[] = [];

async function publish(mode: WebRtcPeerMode, args: string[]): Promise<Publisher> {
  const publisher = await startPublisher(peer(mode).whipUrl, args);
  publishers.push(publisher);
  return publisher;
}

beforeAll(async () => {
  for (const mode of WEBRTC_PEER_MODES) {
    // One after the other: each loads and warms up the model.
    peers.set(mode, await startWebRtcPeer({ mode, threads: 2, args: ['--max-peers', '2', '--inactivity-timeout', '3'] }));
  }
}, 20 * 60_000);

afterAll(async () => {
  await Promise.all(publishers.map((p) => p.kill()));
  await Promise.all([...peers.values()].map((p) => p.stop()));
});

describe.each(WEBRTC_PEER_MODES)('the aiortc WHIP peer in %s mode', (mode) => {
  it(
    'detects the photos of a published VP8 track, each reply naming its frame by the RTP timestamp it was sent with',
    async () => {
      const publisher = await publish(mode, [
        ...['--photos', ...PHOTOS.map((name) => photoPath(`${name}.jpg`))],
        ...['--fps', '15', '--seconds', '1', '--rtp-origin', String(RTP_ORIGIN), '--detections'],
      ]);
      const enough = (events: readonly PublisherEvent[]) =>
        PHOTOS.every((name) => videoReplies(events).filter((reply) => reply.photo === name).length >= 2);
      const replies = videoReplies(await publisher.until(enough, 'two replies for each photo', SLOW));
      expect(await publisher.finish()).toBe(0);
      expect(publisher.events.find((e) => e.event === 'deleted')).toMatchObject({ status: 200 });

      for (const { photo, message } of replies) {
        // The WebSocket's `detections` reply (validated by the shared schema), plus the RTP timestamp.
        expect(validateServerMessage(message)).toMatchObject({ type: 'detections', model: MODEL, width: 640, height: 480 });
        expect(Number.isInteger(message.rtpTimestamp) && message.rtpTimestamp >= 0 && message.rtpTimestamp < RTP_CLOCK).toBe(true);
        // Every reply names a frame the publisher sent.
        expect(photo, `rtpTimestamp ${message.rtpTimestamp}`).not.toBeNull();
      }
      for (let i = 1; i < replies.length; i++) {
        const [before, after] = [replies[i - 1]!.message, replies[i]!.message];
        const ticks = forwardTicks(before.rtpTimestamp, after.rtpTimestamp);
        expect(ticks > 0 && ticks < RTP_CLOCK / 2, `${before.rtpTimestamp} -> ${after.rtpTimestamp}`).toBe(true);
        expect(after.id).toBeGreaterThan(before.id);
        // queue: every decoded frame is detected, in order; latest: frames replaced before the detector was free are skipped.
        if (mode === 'queue') expect(after.id).toBe(before.id + 1);
      }
      expect(replies[0]!.message.id).toBe(0);
      // The first frame is always detected (nothing is running then): before the wrap; later ones after it.
      expect(replies[0]!.message.rtpTimestamp).toBe(RTP_ORIGIN);
      expect(replies.some((reply) => reply.message.rtpTimestamp < RTP_ORIGIN)).toBe(true);

      for (const name of PHOTOS) {
        const own = replies.filter((reply) => reply.photo === name);
        const found = own.filter((reply) => hasAll(reply.message, expected(name)));
        // A photo's first frame is a cut the encoder spreads over a few frames: most, not all, must hold every label.
        expect(found.length * 2, `${name}: ${own.map((r) => [...labelsOf(r.message)].join('+')).join(', ')}`).toBeGreaterThan(own.length);
      }
      expect((await health(peer(mode))).peers).toEqual([]);
    },
    SLOW + 60_000,
  );
});

describe('the aiortc WHIP peer', () => {
  it(
    'speaks the frame protocol on a `frames` data channel: hello, then a detections reply per frame',
    async () => {
      const frames = PHOTOS.map((name) => photoPath(`${name}.jpg`));
      const publisher = await publish('latest', ['--channel', 'frames', '--reliable', '--json-frames', ...frames]);
      const events = await publisher.until((e) => e.some((x) => x.event === 'frames-answered'), 'a reply per frame', SLOW);
      expect(await publisher.finish()).toBe(0);

      const [hello, ...answers] = events
        .filter((e) => e.event === 'reply')
        .map((e) => validateServerMessage(JSON.parse(String(e.data))))
        .map((message) => ({ photo: 'id' in message ? PHOTOS[Number(message.id) - 1] : undefined, message }));
      expect(hello!.message).toMatchObject({ type: 'hello', defaultModel: MODEL });
      expect(answers.map((a) => a.photo).sort()).toEqual([...PHOTOS].sort());
      for (const { photo, message } of answers) {
        expect(message.type, JSON.stringify(message)).toBe('detections');
        const detections = message as DetectionsMessage;
        expect(hasAll(detections, expected(photo!)), `${photo}: ${[...labelsOf(detections)].join(', ')}`).toBe(true);
      }
    },
    SLOW,
  );

  it('refuses what it cannot answer with WHIP status codes and a reason', async () => {
    const refused = async (response: Response, status: number, error: string) => {
      expect(response.status).toBe(status);
      const body = (await response.json()) as { error: string; reason: string };
      expect(body.error).toBe(error);
      expect(body.reason.length).toBeGreaterThan(0);
    };
    await refused(await post(peer('latest'), 'not an offer'), 400, 'bad_sdp');
    await refused(await post(peer('latest'), 'v=0\r\nm=video abc\r\n'), 400, 'bad_sdp');
    // A video section without ICE credentials or a DTLS fingerprint: parseable, not answerable.
    await refused(
      await post(peer('latest'), 'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n'),
      400,
      'bad_sdp',
    );
    const audioOnly = [
      'v=0',
      'o=- 0 0 IN IP4 127.0.0.1',
      's=-',
      't=0 0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 111',
      'c=IN IP4 0.0.0.0',
      'a=rtpmap:111 opus/48000/2',
      'a=mid:0',
      'a=sendonly',
      '',
    ].join('\r\n');
    await refused(await post(peer('latest'), audioOnly), 400, 'unsupported_media');
    await refused(await post(peer('latest'), 'v=0\r\n', 'text/plain'), 415, '415');
    await refused(await fetch(`${peer('latest').whipUrl}/no-such-session`, { method: 'DELETE' }), 404, 'not_found');
    const options = await fetch(peer('latest').whipUrl, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
    expect(options.headers.get('accept-post')).toBe('application/sdp');
    expect((await health(peer('latest'))).peers).toEqual([]);
  });

  it(
    'takes at most --max-peers peers, and closes one that vanished, its UDP sockets with it',
    async () => {
      const server = peer('latest');
      const pid = server.server.pid!;
      const camera = ['--photos', photoPath('kite.jpg'), '--fps', '5', '--detections'];
      const first = await publish('latest', camera);
      const second = await publish('latest', camera);
      const replied = (events: readonly PublisherEvent[]) => events.some((e) => e.event === 'detections');
      await Promise.all([first.until(replied, 'a reply', SLOW), second.until(replied, 'a reply', SLOW)]);
      expect(udpSocketsOf(pid)).toBeGreaterThan(0);

      const third = await publish('latest', camera);
      const events = await third.until((e) => e.some((x) => x.event === 'refused'), 'a refusal', 60_000);
      expect(events.find((e) => e.event === 'refused')).toMatchObject({ status: 503 });

      await first.kill(); // no DELETE: the peer notices the silence (--inactivity-timeout 3)
      await waitFor(async () => (await health(server)).peers.length === 1, 'the vanished peer closed', 60_000);
      expect(await second.finish()).toBe(0);
      expect((await health(server)).peers).toEqual([]);
      await waitFor(async () => udpSocketsOf(pid) === 0, 'no UDP socket left', 30_000);
    },
    SLOW,
  );
});
