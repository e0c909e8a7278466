/**
 * The WHIP session layer against aiortc, a WebRTC implementation not written here, over loopback: data
 * channel messages both ways, a VP8 track arriving as complete frames (keyframe first, RTP timestamps
 * increasing, a keyframe again on request), a peer behind an emulated link (the relay), structured refusals,
 * and 20 peers that come and go leaving no session, UDP port or memory behind.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VideoFrameEvent } from '../../../src/webrtc/index.ts';
import { aiortcEnv, PHOTOS, startAiortcClient } from '../../support/aiortc-client.ts';
import { startWhipServer, type WhipTestServer } from '../../support/whip-server.ts';

const PORTS = { min: 47000, max: 47199 };

/**
 * UDP sockets of this process bound in the gateway's port range. The range lies among the ephemeral ports, so
 * another process (a test file running beside this one, an aiortc client) may hold one of them: only the
 * sockets among this process's descriptors count.
 */
function udpSocketsInRange(): number {
  const own = new Set(
    readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return [/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1]].filter((inode) => inode !== undefined);
      } catch {
        return []; // closed while listing
      }
    }),
  );
  return ['/proc/net/udp', '/proc/net/udp6']
    .flatMap((file) => readFileSync(file, 'utf8').trim().split('\n').slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => {
      const port = parseInt(fields[1]!.split(':')[1]!, 16);
      return port >= PORTS.min && port <= PORTS.max && own.has(fields[9]!);
    }).length;
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
};

describe('WHIP sessions with an aiortc peer', () => {
  let server: WhipTestServer;
  const frames: VideoFrameEvent[] = [];
  const received: { label: string; size: number }[] = [];
  const ended: string[] = [];

  beforeAll(async () => {
    await aiortcEnv();
    server = await startWhipServer({
      config: { portRange: PORTS, inactivityTimeoutMs: 2_000, maxPeers: 20 },
      onSession: (session) => {
        session.handlers.onDataChannel = (channel) =>
          channel.onMessage((data) => {
            received.push({ label: channel.label, size: data.length });
            // Reply on the same channel, naming the message by its sequence number.
            if (typeof data !== 'string')
              channel.send(JSON.stringify({ seq: new DataView(data.buffer, data.byteOffset).getUint32(0), label: channel.label }));
          });
        session.handlers.onVideoFrame = (frame) => frames.push(frame);
      },
      onSessionEnd: (_session, reason) => ended.push(reason),
    });
  }, 20 * 60_000);

  afterAll(() => server?.close());

  it('carries 60 KB messages on an unordered channel with no retransmissions, replies on the same channel', async () => {
    const client = await startAiortcClient(server.url, [
      '--channel',
      'frames',
      '--messages',
      '20',
      '--size',
      '60000',
      '--interval',
      '0.05',
    ]);
    const open = await client.next('open');
    // Our answer advertises 256 KiB: a 60 KB frame fits where aiortc's default (64 KiB) would be the limit.
    expect(open.maxMessageSize).toBe(262144);
    await client.next('sent');
    // Unreliable by design: on a loaded machine a stalled reader may lose a message or two even on loopback.
    const replies = () =>
      client.events.filter((e) => e.event === 'reply').map((e) => JSON.parse(e.data as string) as { seq: number; label: string });
    await until(() => replies().length >= 18);
    expect(received.length).toBeGreaterThanOrEqual(18);
    expect(received.every((m) => m.label === 'frames' && m.size === 60000)).toBe(true);
    const seqs = replies().map((r) => r.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs.every((seq) => Number.isInteger(seq) && seq >= 0 && seq < 20)).toBe(true);
    expect(new Set(replies().map((r) => r.label))).toEqual(new Set(['frames']));
    expect(await client.finish()).toBe(0);
    expect(client.events.find((e) => e.event === 'deleted')?.status).toBe(200);
    expect(server.manager.size).toBe(0);
    expect(ended.at(-1)).toBe('deleted');
  });

  it('turns a VP8 track into complete frames: keyframe first, RTP timestamps increasing, a keyframe on request', async () => {
    frames.length = 0;
    const client = await startAiortcClient(server.url, ['--photos', ...PHOTOS, '--fps', '10']);
    await client.next('answer');
    await until(() => frames.length >= 10);
    const session = server.manager.sessions()[0]!;
    expect(frames[0]!.keyframe).toBe(true);
    expect(frames.every((f) => f.codec === 'vp8' && f.mid === '0')).toBe(true);
    // A VP8 keyframe opens with the start code 9d 01 2a after the 3-byte frame tag (RFC 6386 9.1).
    expect([...frames[0]!.data.subarray(3, 6)]).toEqual([0x9d, 0x01, 0x2a]);
    for (let i = 1; i < frames.length; i++) {
      const step = (frames[i]!.rtpTimestamp - frames[i - 1]!.rtpTimestamp) >>> 0;
      expect(step).toBeGreaterThan(0);
      expect(step).toBeLessThan(2 ** 31);
    }
    const before = frames.length;
    expect(session.requestKeyframe()).toBe(true);
    await until(() => frames.slice(before).some((f) => f.keyframe));
    const stats = session.stats();
    expect(stats.state).toBe('connected');
    expect(stats.video[0]).toMatchObject({ codec: 'vp8', keyframesRequested: 1 });
    expect(stats.video[0]!.packetsReceived).toBeGreaterThan(frames.length);
    expect(stats.video[0]!.bitrateBps).toBeGreaterThan(0);
    expect(await client.finish()).toBe(0);
    expect(server.manager.size).toBe(0);
  });

  it('puts a peer behind the link its POST names: the answer names a relay alone, and every message crosses it both ways', async () => {
    const client = await startAiortcClient(`${server.url}?link=delay=100ms,loss=0.5%25`, [
      '--channel',
      'frames',
      '--reliable',
      '--messages',
      '5',
      '--size',
      '1000',
      '--interval',
      '0.05',
    ]);
    const answer = await client.next('answer');
    // One UDP flow, to the relay's port in the gateway's range: the stack's own candidate is not offered.
    const candidates = [...String(answer.sdp).matchAll(/^a=candidate:\S+ \d+ (\S+) \d+ (\S+) (\d+)/gm)];
    expect(new Set(candidates.map((c) => `${c[1]} ${c[2]} ${c[3]}`)).size).toBe(1);
    expect(candidates[0]![1]!.toLowerCase()).toBe('udp');
    expect(Number(candidates[0]![3])).toBeGreaterThanOrEqual(PORTS.min);
    await client.next('sent');
    const at = (event: string) =>
      new Map(client.events.filter((e) => e.event === event).map((e) => [e.seq ?? JSON.parse(String(e.data)).seq, e.t as number]));
    await until(() => at('reply').size >= 5);
    const sent = at('message-sent');
    // 100 ms each way: no message can come back sooner than 200 ms after it left, whatever this machine's speed.
    for (const [seq, repliedAt] of at('reply')) expect(repliedAt - sent.get(seq)!).toBeGreaterThanOrEqual(199);
    expect(await client.finish()).toBe(0);
    expect(server.manager.size).toBe(0);
    // The relay lingers a moment after its peer (its last packets are still crossing the link), then goes.
    await until(() => udpSocketsInRange() === 0);
  });

  it('refuses a link it cannot emulate with 400 bad_link and the reason', async () => {
    const post = (link: string) =>
      fetch(`${server.url}?link=${encodeURIComponent(link)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp' },
        body: 'v=0',
      });
    const unknown = await post('lt');
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: 'bad_link', reason: expect.stringMatching(/unknown preset 'lt'/) });
    const trace = await post('trace-up=/etc/passwd');
    expect(trace.status).toBe(400);
    expect(((await trace.json()) as { error: string }).error).toBe('bad_link');
    expect(server.manager.size).toBe(0);
  });

  it('answers bad offers with a reason: 400 for SDP it cannot read or media it cannot take, 415, 404', async () => {
    const post = (body: string, type = 'application/sdp') => fetch(server.url, { method: 'POST', headers: { 'Content-Type': type }, body });
    const garbage = await post('hello');
    expect(garbage.status).toBe(400);
    expect(await garbage.json()).toEqual({ error: 'bad_sdp', reason: 'not an SDP offer: the first line must be v=0' });
    const audioOnly = await post(
      [
        'v=0',
        'o=- 1 1 IN IP4 127.0.0.1',
        's=-',
        't=0 0',
        'a=ice-ufrag:abcd',
        'a=ice-pwd:abcdefghijklmnopqrstuvwx',
        'a=fingerprint:sha-256 00',
        'm=audio 9 UDP/TLS/RTP/SAVPF 111',
        'a=mid:0',
        'a=rtpmap:111 opus/48000/2',
        '',
      ].join('\r\n'),
    );
    expect(audioOnly.status).toBe(400);
    expect(((await audioOnly.json()) as { error: string }).error).toBe('unsupported_media');
    expect((await post('v=0', 'text/plain')).status).toBe(415);
    expect((await fetch(`${server.url}/no-such-session`, { method: 'DELETE' })).status).toBe(404);
    expect(server.manager.size).toBe(0);
  });

  it('refuses a peer past maxPeers with 503 and a reason, and drain closes the open ones and refuses new ones', async () => {
    const bounded = await startWhipServer({ config: { portRange: PORTS, maxPeers: 1 } });
    try {
      const first = await startAiortcClient(bounded.url, ['--channel', 'frames']);
      await first.next('open');
      const second = await startAiortcClient(bounded.url, ['--channel', 'frames']);
      expect(await second.next('refused')).toMatchObject({ status: 503 });
      expect(JSON.parse(second.events.find((e) => e.event === 'refused')!.body as string)).toEqual({
        error: 'too_many_peers',
        reason: 'the gateway takes at most 1 WebRTC peers at once',
      });
      await bounded.manager.drain();
      expect(bounded.manager.size).toBe(0);
      // The peer hears of it (its channel closes), without waiting for its consent check to expire.
      await until(() => first.events.some((e) => e.event === 'channel-closed'));
      const third = await startAiortcClient(bounded.url, ['--channel', 'frames']);
      expect(await third.next('refused')).toMatchObject({ status: 503 });
      expect(await first.finish()).toBe(0);
    } finally {
      await bounded.close();
    }
  });

  it('20 peers connecting and leaving (DELETE, or vanishing) leave no session, UDP port or memory behind', async () => {
    const memory = () => process.memoryUsage().rss;
    const churn = async () => {
      // Five at a time: each aiortc client is a Python process.
      for (let batch = 0; batch < 4; batch++) {
        const clients = await Promise.all(
          // Two of each five behind a link: their relays' sockets must go with them too.
          [...Array(5).keys()].map((i) =>
            startAiortcClient(i % 2 === 0 ? server.url : `${server.url}?link=delay=5ms`, [
              '--channel',
              'frames',
              '--messages',
              '3',
              '--size',
              '20000',
            ]),
          ),
        );
        await Promise.all(clients.map((c) => c.next('sent')));
        expect(server.manager.size).toBe(5);
        // Three leave with DELETE, two vanish: killed, they send nothing more and are closed as inactive.
        await Promise.all(clients.map((c, i) => (i < 3 ? c.finish() : c.kill())));
        await until(() => server.manager.size === 0);
      }
    };
    await churn(); // the first round pays for the native library's one-time allocations
    const baseline = memory();
    const endedBefore = ended.length;
    await churn();
    expect(server.manager.size).toBe(0);
    await until(() => udpSocketsInRange() === 0);
    expect(ended.slice(endedBefore).filter((r) => r === 'inactive')).toHaveLength(8);
    expect(ended.slice(endedBefore).filter((r) => r === 'deleted')).toHaveLength(12);
    // Twenty more peers may not keep what they used: well under one peer's worth per peer stays.
    expect(memory() - baseline).toBeLessThan(32 * 2 ** 20);
    console.log(
      `threads ${readdirSync('/proc/self/task').length}, rss ${(memory() / 2 ** 20).toFixed(0)} MiB (+${((memory() - baseline) / 2 ** 20).toFixed(1)} after 20 more peers)`,
    );
  }, 300_000);
});
