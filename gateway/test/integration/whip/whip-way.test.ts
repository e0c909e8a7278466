/**
 * The WebRTC way in on a real gateway: WHIP behind the gateway's own guard, and a data channel that is a
 * message session like a WebSocket connection (hello, frames, detections), with aiortc as the other peer (a
 * real WebRTC implementation not written here). ICE on 127.0.0.1 only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLinkSpec, linkLabel, parseLinkSpec } from '@sightline/shared/link';
import { WHIP_PATH, type WhipReceiveStats } from '@sightline/shared/protocol';
import type { RunningGateway } from '../../../src/gateway.ts';
import { aiortcEnv, PHOTOS, startAiortcClient } from '../../support/aiortc-client.ts';
import { startTestGateway } from '../../support/test-gateway.ts';
import type { TappedFrame } from '../../../src/frames/detections-tap.ts';

let gateway: RunningGateway;
let whipUrl: string;

beforeAll(async () => {
  await aiortcEnv();
  gateway = await startTestGateway({ webrtcMaxPeers: 4 });
  whipUrl = `${gateway.url}${WHIP_PATH}`;
}, 10 * 60_000);
afterAll(() => gateway?.close());

describe('WHIP way in', () => {
  it('serves the frame protocol on a data channel: hello on open, each frame answered with its detections', async () => {
    const [dog, horses] = PHOTOS;
    const client = await startAiortcClient(whipUrl, ['--channel', 'frames', '--reliable', '--json-frames', dog!, horses!]);
    try {
      await client.next('frames-answered');
      const replies = client.events.filter((e) => e.event === 'reply').map((e) => JSON.parse(String(e.data)) as Record<string, unknown>);
      expect(replies[0]).toMatchObject({ type: 'hello', models: expect.arrayContaining(['ssdlite-mobilenetv2-coco']) });
      const detections = replies.filter((r) => r.type === 'detections') as Array<{ id: number; detections: Array<{ label: string }> }>;
      expect(detections.map((d) => d.id)).toEqual([1, 2]);
      expect(detections[0]!.detections.map((d) => d.label)).toContain('dog');
      expect(detections[1]!.detections.map((d) => d.label)).toContain('horse');
    } finally {
      await client.finish();
    }
  });

  it('detects the pictures of a video track and sends each result on the detections channel with its RTP timestamp', async () => {
    // The peer names its camera: every picture detected passes the detections tap with it.
    const tapped: TappedFrame[] = [];
    const unsubscribe = gateway.tap.subscribe({ wantsTracks: () => false, frame: (frame) => tapped.push(frame), streamEnded: () => {} });
    const client = await startAiortcClient(`${whipUrl}?camera=porch`, [
      '--channel',
      'detections',
      '--reliable',
      '--photos',
      ...PHOTOS,
      '--fps',
      '10',
    ]);
    try {
      await client.next('open');
      const deadline = Date.now() + 60_000;
      const results = () =>
        client.events
          .filter((e) => e.event === 'reply')
          .map(
            (e) => JSON.parse(String(e.data)) as { type: string; rtpTimestamp?: number; id: number; detections: Array<{ label: string }> },
          );
      while (results().length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const replies = results();
      expect(replies.length).toBeGreaterThanOrEqual(5);
      for (const reply of replies) expect(reply).toMatchObject({ type: 'detections', rtpTimestamp: expect.any(Number) });
      // Named in the order the frames came, their RTP timestamps growing with them.
      const ids = replies.map((r) => r.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      const stamps = replies.map((r) => r.rtpTimestamp!);
      expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
      // The first photo shown is the dog.
      expect(replies.some((r) => r.detections.some((d) => d.label === 'dog'))).toBe(true);
      // The session's resource gives the gateway's own receiver statistics of the track.
      const { location } = client.events.find((e) => e.event === 'answer') as unknown as { location: string };
      const stats = (await (await fetch(location)).json()) as WhipReceiveStats;
      expect(stats.video).toHaveLength(1);
      expect(stats.video[0]).toMatchObject({ codec: 'vp8', packetsLost: expect.any(Number), jitterMs: expect.any(Number) });
      expect(stats.video[0]!.packetsReceived).toBeGreaterThan(0);
      expect(stats.video[0]!.framesDelivered).toBeGreaterThanOrEqual(replies.length);
      expect((await fetch(`${whipUrl}/no-such-session`)).status).toBe(404);
      const porch = tapped.filter((frame) => frame.camera === 'porch');
      expect(porch.length).toBeGreaterThanOrEqual(replies.length);
      // Capture times are the RTP clock in ms (90 kHz), growing.
      const times = porch.map((frame) => frame.capturedAt);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    } finally {
      unsubscribe();
      await client.finish();
    }
  });

  it('takes at most two frame channels from one peer: another hears overloaded and is closed, the peer stays', async () => {
    const client = await startAiortcClient(whipUrl, ['--extra-channels', '3']);
    try {
      await client.next('extra-closed');
      const deadline = Date.now() + 20_000;
      const replies = () =>
        client.events.filter((e) => e.event === 'extra-reply').map((e) => JSON.parse(String(e.data)) as { type: string; code?: string });
      while (replies().filter((r) => r.type === 'hello').length < 2 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(replies().filter((r) => r.type === 'hello')).toHaveLength(2);
      expect(replies().filter((r) => r.type === 'error')).toEqual([expect.objectContaining({ code: 'overloaded' })]);
      expect(client.events.filter((e) => e.event === 'extra-closed')).toHaveLength(1);
      expect(client.events.some((e) => e.event === 'state' && e.state === 'failed')).toBe(false);
    } finally {
      await client.finish();
    }
  });

  it('runs a peer behind the link its POST names: the hello on each data channel names it, loss allowed over UDP', async () => {
    const [dog] = PHOTOS;
    const client = await startAiortcClient(`${whipUrl}?link=${encodeURIComponent('delay=30ms,loss=1%')}`, [
      '--channel',
      'frames',
      '--reliable',
      '--json-frames',
      dog!,
    ]);
    try {
      await client.next('frames-answered');
      const replies = client.events.filter((e) => e.event === 'reply').map((e) => JSON.parse(String(e.data)) as Record<string, unknown>);
      const profile = parseLinkSpec('delay=30ms,loss=1%');
      expect(replies[0]).toMatchObject({ type: 'hello', link: { spec: formatLinkSpec(profile), label: linkLabel(profile) } });
      expect(replies.find((r) => r.type === 'detections')).toMatchObject({
        id: 1,
        detections: expect.arrayContaining([expect.objectContaining({ label: 'dog' })]),
      });
    } finally {
      await client.finish();
    }
    const bad = await fetch(`${whipUrl}?link=lt`, { method: 'POST', headers: { 'content-type': 'application/sdp' }, body: 'v=0' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'bad_link' });
  });

  it('answers WHIP behind the same guard as the API: a foreign Origin is 403, a bad offer 400 with its reason', async () => {
    const foreign = await fetch(whipUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/sdp', origin: 'https://evil.example' },
      body: 'v=0',
    });
    expect(foreign.status).toBe(403);
    const bad = await fetch(whipUrl, { method: 'POST', headers: { 'content-type': 'application/sdp' }, body: 'not an offer' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/offer/i);
  });
});
