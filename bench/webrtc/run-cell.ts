/**
 * One WebRTC benchmark run ("cell"): the aiortc sender publishes the clip to a server over WHIP for a warm-up
 * and `durationS` measured seconds, on one of two paths, and every frame is matched to its reply:
 *
 * - `webrtc-dc`: a data channel `frames`, unordered with no retransmissions (a lost frame is lost, not late).
 *   A camera ticks at `fps`; at each tick a frame message (the clip's JPEG, MessagePack or JSON) is sent when
 *   fewer than `window` frames await their reply and the channel's send buffer is not full, else the tick is
 *   skipped. A frame stops holding its place in the window after a reply timeout that follows the replies
 *   (reply-timeout.ts: TCP's RTO), and is lost with no reply within `timeoutMs`.
 * - `webrtc-track`: the clip as a VP8 (or H.264) video track at `fps`, encoded live by the sender, and a
 *   `detections` channel (unordered, no retransmissions) on which the server names each detected frame's RTP
 *   timestamp; the sender knows the timestamp each frame carried, so each result is matched to its frame's
 *   capture time. A frame no result names within `timeoutMs` is counted lost (lost on the way, or not
 *   detected: the server detects the newest picture and skips the ones it had no time for).
 *
 * Latency is from capture (track) or send (data channel) to the reply's arrival, both stamped by the sender.
 * With a link: `linkPath: 'relay'` (default) puts a user-space UDP relay here between the sender and the
 * server (udp-relay.ts, no root); `'network'` says the path to `serverUrl` already carries it (the packet
 * path: the server runs inside the link's namespace, and the sender binds `clientAddress`).
 */
import { candidateAddresses, replaceCandidates, UdpRelay, withoutCandidates } from '@sightline/gateway/link';
import { WHIP_PATH } from '@sightline/shared/protocol';
import { isTransparent, linkLabel, parseLinkSpec, type LinkProfile } from '@sightline/shared/link';
import { prepareClip, type Clip } from './clip.ts';
import { measuredPeriod, type FrameSample, type MeasuredPeriod } from './figures.ts';
import { ReplyTimeout } from './reply-timeout.ts';
import { rtpKey, SendLog, type ReplyOutcome } from './send-log.ts';
import { SenderProcess, type SenderEvent } from './sender-process.ts';
import { whipDelete, whipPublish } from './whip.ts';

export const WEBRTC_TRANSPORTS = ['webrtc-dc', 'webrtc-track'] as const;
export type WebRtcTransport = (typeof WEBRTC_TRANSPORTS)[number];

/** The codecs of each path: the data channel's message codec, the track's video codec; the first is the default. */
export const WEBRTC_CODECS: Record<WebRtcTransport, readonly string[]> = {
  'webrtc-dc': ['msgpack', 'json'],
  'webrtc-track': ['vp8', 'h264'],
};

export const WEBRTC_CELL_DEFAULTS = {
  fps: 30,
  warmupS: 3,
  window: 2,
  /** Data channel: a frame with no reply this long is given up and frees its place in the window. */
  dcTimeoutMs: 2000,
  /**
   * Video track: nothing waits on a result, so the timeout only decides what counts as lost; long, so a server
   * whose delay grows (a queue) shows that delay instead of losses.
   */
  trackTimeoutMs: 10_000,
  windowS: 10,
  label: 'frames',
};

const END_WAIT_MIN_MS = 2000;
const END_WAIT_MAX_MS = 60_000;

export interface WebRtcCellOptions {
  transport: WebRtcTransport;
  /** Default: the path's first in WEBRTC_CODECS. */
  codec?: string | undefined;
  /** The emulated link between the sender and the server (a spec such as `lte,loss=2%`, or a profile); none when absent. */
  link?: string | LinkProfile | undefined;
  /** relay (default): apply `link` with a UDP relay here. network: the path to the server carries it already. */
  linkPath?: 'relay' | 'network';
  /** The server, http://host:port; WHIP at `whipPath` (default /whip). */
  serverUrl: string;
  whipPath?: string;
  /** Measured seconds, after the warm-up. */
  durationS: number;
  warmupS?: number;
  fps?: number;
  /** Data channel: frames awaiting a reply at most. */
  window?: number;
  /** A frame with no reply this long after it went out is lost (default: dcTimeoutMs or trackTimeoutMs). */
  timeoutMs?: number;
  /** Width of the latency windows, seconds. */
  windowS?: number;
  /** The address the sender's ICE binds: 127.0.0.1, or the host end of a packet link. */
  clientAddress?: string;
  /** Data channel label: `frames` (both servers serve the frame protocol on it). */
  label?: string;
  /** Bearer token for WHIP. */
  token?: string;
  /** A clip made once for many cells (prepareClip(fps)); made and removed here when absent. */
  clip?: Clip;
  /** Seed of the relay's link. */
  seed?: number;
  log?: (line: string) => void;
}

export interface WebRtcCellResult extends MeasuredPeriod {
  transport: WebRtcTransport;
  codec: string;
  /** What the link was, as the link lab labels it, or `loopback`. */
  link: string;
  linkPath: 'none' | 'relay' | 'network';
  /** Replies after their frame's timeout, replies naming no frame sent, replies twice. */
  late: number;
  unmatched: number;
  duplicates: number;
  /** What the sender's stack said at the end: transport bytes and packets, RTT, the encoder's target bitrate. */
  senderStats: Record<string, unknown>;
  /** Datagram counters of the relay, per direction, when one carried the link. */
  relay?: ReturnType<UdpRelay['counters']> | undefined;
  durationS: number;
  warmupS: number;
  fps: number;
}

function profileOf(link: WebRtcCellOptions['link']): LinkProfile | undefined {
  if (link === undefined) return undefined;
  const profile = typeof link === 'string' ? parseLinkSpec(link) : link;
  return isTransparent(profile.up) && isTransparent(profile.down) ? undefined : profile;
}

/** The reply's outcome for the log: detections, or a refusal with its reason; hello, pong and the like are not frames. */
function replyOutcome(event: SenderEvent): { outcome: ReplyOutcome; reason?: string } | undefined {
  if (event.type === 'detections') return { outcome: 'detected' };
  if (event.type === 'dropped' || event.type === 'error') {
    const why = event.reason ?? event.code;
    return { outcome: 'refused', reason: `${event.type}:${typeof why === 'string' ? why : 'unknown'}` };
  }
  return undefined;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Runs one cell; throws when the session cannot be set up (WHIP refused, no connection), with the reason. */
export async function runWebRtcCell(options: WebRtcCellOptions): Promise<WebRtcCellResult> {
  // An option given as undefined keeps its default.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as WebRtcCellOptions;
  const o = { ...WEBRTC_CELL_DEFAULTS, ...given };
  const codec = o.codec ?? WEBRTC_CODECS[o.transport][0]!;
  const timeoutMs = o.timeoutMs ?? (o.transport === 'webrtc-dc' ? o.dcTimeoutMs : o.trackTimeoutMs);
  if (!WEBRTC_CODECS[o.transport].includes(codec)) {
    throw new Error(`${o.transport} has no codec ${codec}; it has ${WEBRTC_CODECS[o.transport].join(', ')}`);
  }
  const profile = profileOf(o.link);
  const linkPath = profile === undefined ? 'none' : (o.linkPath ?? 'relay');
  const log = o.log ?? (() => {});
  const clip = o.clip ?? (await prepareClip(o.fps, { jpegs: o.transport === 'webrtc-dc' }));
  if (clip.fps !== o.fps) throw new Error(`the clip was made for ${clip.fps} fps, the cell sends ${o.fps}`);
  if (o.transport === 'webrtc-dc' && !clip.jpegDir)
    throw new Error('the clip was made without its JPEG frames, which the data channel sends');
  const relays: UdpRelay[] = [];
  let sender: SenderProcess | undefined;
  let location: string | undefined;
  try {
    const track = o.transport === 'webrtc-track';
    sender = await SenderProcess.start({
      mode: track ? 'track' : 'dc',
      codec,
      bind: o.clientAddress ?? '127.0.0.1',
      fps: o.fps,
      clip: track ? clip.y4m : undefined,
      jpegDir: track ? undefined : clip.jpegDir,
      label: o.label,
    });
    const offer = String((await sender.next('offer', 120_000)).sdp);
    const whipUrl = new URL(o.whipPath ?? WHIP_PATH, o.serverUrl).toString();
    const session = await whipPublish(whipUrl, linkPath === 'relay' ? withoutCandidates(offer) : offer, { token: o.token });
    location = session.location;
    let answer = session.answer;
    if (linkPath === 'relay') {
      const byTarget = new Map<string, UdpRelay>();
      for (const candidate of candidateAddresses(answer).filter((c) => c.transport === 'udp')) {
        const relay = await UdpRelay.start({ target: candidate, profile: profile!, ...(o.seed !== undefined ? { seed: o.seed } : {}) });
        relays.push(relay);
        byTarget.set(`${candidate.address}:${candidate.port}`, relay);
      }
      if (relays.length === 0) throw new Error(`the answer names no UDP candidate to relay:\n${answer}`);
      answer = replaceCandidates(answer, (c) => byTarget.get(`${c.address}:${c.port}`)?.address);
    }
    const sendLog = new SendLog<number>(timeoutMs);
    const replyTimeout = new ReplyTimeout(timeoutMs);
    const skipped: FrameSample[] = [];
    let nextId = 1;
    /** Data channel: sends asked of the sender and not yet confirmed (sent or skipped). */
    let asked = 0;
    let failure: string | undefined;
    let paused = false;
    /** The measured period, on the sender's clock: set when the channel opens (the warm-up starts then). */
    let originMs = Number.POSITIVE_INFINITY;
    let endMs = Number.POSITIVE_INFINITY;
    // One listener for the whole session, from before the answer: frames sent before the channel opened and
    // while pausing are logged too (outside the measured period), so no reply is one to a frame never seen.
    let stopListening = () => {};
    const ended = new Promise<void>((resolve) => {
      stopListening = sender!.on((event) => {
        const t = num(event.t);
        if (t !== undefined) sendLog.expire(t);
        switch (event.event) {
          case 'open':
            if (t !== undefined && originMs === Number.POSITIVE_INFINITY) {
              originMs = t + o.warmupS * 1000;
              endMs = originMs + o.durationS * 1000;
            }
            break;
          case 'tick': {
            if (paused) break;
            // A frame holds its place in the window until answered or the reply timeout (RFC 6298's) gives up on it.
            if (sendLog.pendingSince(t! - replyTimeout.ms) + asked < o.window) {
              asked++;
              sender!.command({ cmd: 'send', id: nextId++, index: num(event.index) ?? 0 });
            } else skipped.push({ sentAt: t!, outcome: 'skipped', bytes: 0 });
            break;
          }
          case 'sent':
            asked = Math.max(0, asked - 1);
            sendLog.sent(num(event.id)!, t!, num(event.bytes) ?? 0);
            break;
          case 'skipped':
            asked = Math.max(0, asked - 1);
            skipped.push({ sentAt: t!, outcome: 'skipped', bytes: 0 });
            break;
          case 'frame': {
            const rtp = rtpKey(event.rtp);
            if (t === undefined) break; // a frame whose capture time the sender lost track of: not measured
            if (rtp === undefined) skipped.push({ sentAt: t, outcome: 'skipped', bytes: 0 });
            else sendLog.sent(rtp, t, num(event.bytes) ?? 0);
            break;
          }
          case 'reply': {
            const settled = replyOutcome(event);
            if (!settled) break;
            const key = track ? rtpKey(event.rtpTimestamp) : num(event.id);
            if (key === undefined) {
              sendLog.unknown++;
              break;
            }
            const match = sendLog.replied(key, t!, settled.outcome, {
              reason: settled.reason,
              detections: num(event.detections),
              serverMs: num(event.serverMs),
              inferenceMs: num(event.inferenceMs),
            });
            if (match === 'matched') replyTimeout.observe(sendLog.latencyOf(key)!);
            break;
          }
          case 'state':
            if (!paused && (event.state === 'failed' || event.state === 'closed')) {
              failure = `the peer connection turned ${String(event.state)}`;
              resolve();
            }
            break;
          case 'exit':
          case 'error':
            if (paused) break;
            failure = `the sender ${event.event === 'exit' ? 'exited' : `failed: ${String(event.message)}`}`;
            resolve();
            break;
        }
        if (!paused && t !== undefined && t >= endMs) {
          paused = true;
          sender!.command({ cmd: 'pause' });
          resolve();
        }
      });
    });
    const opened = sender.next('open', 30_000);
    sender.command({ cmd: 'answer', sdp: answer });
    await opened;
    log(`${o.transport} ${codec}: connected, ${o.warmupS} s warm-up then ${o.durationS} s measured`);
    // Bounded however the sender behaves: the run plus a minute.
    const guard = new Promise<void>((resolve) => setTimeout(resolve, (o.warmupS + o.durationS + 60) * 1000).unref());
    await Promise.race([ended, guard]);
    if (!paused && failure === undefined) failure = 'the sender stopped reporting frames';
    if (failure !== undefined)
      throw new Error(`${o.transport} ${codec}: ${failure}${sender.errors() ? `; stderr: ${sender.errors().slice(-800)}` : ''}`);
    // Replies to the last frames, until none is pending; at most the timeout, and no longer than twice the
    // slowest reply so far (at least 2 s, at most a minute): a frame a newest-wins server skipped is never
    // answered, and waiting out a long timeout for it would only stretch every run.
    const slowest = Math.max(0, ...sendLog.records().map((r) => r.latencyMs ?? 0));
    const waitMs = Math.min(timeoutMs, Math.max(END_WAIT_MIN_MS, 2 * slowest), END_WAIT_MAX_MS) + 200;
    const waitUntil = Date.now() + waitMs;
    while (sendLog.pendingCount > 0 && Date.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 100));
    // As a WHIP client ends: DELETE the session, then close the peer connection.
    await whipDelete(location, { token: o.token });
    location = undefined;
    const stats = sender.next('stats', 10_000).catch(() => ({ event: 'stats' }) as SenderEvent);
    await sender.stop();
    stopListening();
    const { event: _event, t: _t, ...senderStats } = await stats;
    sendLog.finish();

    const samples: FrameSample[] = [
      ...sendLog.records().map((r): FrameSample => ({
        sentAt: r.sentAt,
        outcome: r.outcome === 'pending' ? 'lost' : r.outcome,
        latencyMs: r.latencyMs,
        bytes: r.bytes,
        reason: r.reply?.reason,
      })),
      ...skipped,
    ].sort((a, b) => a.sentAt - b.sentAt);
    return {
      transport: o.transport,
      codec,
      link: profile ? linkLabel(profile) : 'loopback',
      linkPath,
      ...measuredPeriod(samples, { originMs, endMs, windowS: o.windowS }),
      late: sendLog.late,
      unmatched: sendLog.unknown,
      duplicates: sendLog.duplicates,
      senderStats,
      relay: relays.length ? relays[0]!.counters() : undefined,
      durationS: o.durationS,
      warmupS: o.warmupS,
      fps: o.fps,
    };
  } finally {
    await sender?.stop();
    if (location) await whipDelete(location, { token: o.token });
    await Promise.all(relays.map((relay) => relay.close()));
    if (!o.clip) clip.dispose();
  }
}
