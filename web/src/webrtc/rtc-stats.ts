/**
 * The connection's own WebRTC statistics (RTCPeerConnection.getStats()) as the figures the dashboard shows
 * beside Sightline's: the round trip (ICE's, on the selected candidate pair; RTCP's for the track), the send
 * bitrate (bytes sent since the previous report), what the congestion controller allows, and for the video
 * track the receiver's view (packets lost, jitter: the gateway's own counts from its WHIP session, since the
 * RTCP reports its stack sends carry zeros) and the encoder's (frames encoded, frames the encoder dropped:
 * frames from the camera that were never encoded). Pure: reports in, figures out.
 */
import type { WhipReceiveStats } from '@sightline/shared/protocol';

/** One stats object as getStats() gives it: a type, an id, and its fields. */
export type RtcStat = { type: string; id: string } & Record<string, unknown>;

export interface WebRtcFigures {
  /** Round trip, ms: ICE's on the selected pair, else RTCP's. */
  rttMs?: number;
  /** Bits sent per second since the previous report, kbit/s. */
  sendKbps?: number;
  /** The congestion controller's estimate of what may be sent, kbit/s. */
  availableKbps?: number;
  /** The video encoder's target, kbit/s. */
  targetKbps?: number;
  packetsSent?: number;
  /** Packets the gateway counted lost (its own receiver statistics; the browser's RTCP view where it has none). */
  packetsLost?: number;
  /** Share lost in the last report interval, 0..1 (RTCP). */
  fractionLost?: number;
  /** Interarrival jitter at the gateway, ms (its own receiver statistics, else RTCP). */
  jitterMs?: number;
  /** Packets the gateway received on the track. */
  packetsReceived?: number;
  framesEncoded?: number;
  framesSent?: number;
  /** Camera frames never encoded (source frames minus frames encoded): the encoder or the bandwidth kept up with fewer. */
  framesDropped?: number;
  framesPerSecond?: number;
  keyFramesEncoded?: number;
  /** Keyframes the gateway asked for (PLI). */
  pliCount?: number;
  /** Retransmissions the gateway asked for. */
  nackCount?: number;
  frameWidth?: number;
  frameHeight?: number;
  /** e.g. libvpx, OpenH264. */
  encoder?: string;
  /** e.g. video/VP8. */
  codec?: string;
  /** cpu, bandwidth, other or none. */
  qualityLimitation?: string;
  /** The message channel's messages and bytes sent (data-channel stats). */
  messagesSent?: number;
  messagesReceived?: number;
}

/** What the next summary needs of this one: the bytes sent by then, and when. */
export interface RtcStatsMark {
  at: number;
  bytesSent: number;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const ms = (seconds: unknown): number | undefined => {
  const value = num(seconds);
  return value === undefined ? undefined : value * 1000;
};
const kbps = (bitsPerSecond: unknown): number | undefined => {
  const value = num(bitsPerSecond);
  return value === undefined ? undefined : value / 1000;
};

/** The track's counts that getStats() names as the figures do (outbound-rtp), passed on as they are. */
const TRACK_COUNTS = [
  'packetsSent',
  'framesSent',
  'framesPerSecond',
  'keyFramesEncoded',
  'pliCount',
  'nackCount',
  'frameWidth',
  'frameHeight',
] as const satisfies readonly (keyof WebRtcFigures)[];

/** Drops the fields that are undefined, so a figure the browser does not give is absent, not `undefined`. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

export function summarizeRtcStats(
  report: Iterable<RtcStat>,
  at: number,
  previous?: RtcStatsMark,
): { figures: WebRtcFigures; mark: RtcStatsMark | undefined } {
  const stats = [...report];
  const byId = new Map(stats.map((stat) => [stat.id, stat]));
  const transport = stats.find((stat) => stat.type === 'transport');
  const selectedId = str(transport?.selectedCandidatePairId);
  const pair =
    (selectedId ? byId.get(selectedId) : undefined) ??
    stats.find((stat) => stat.type === 'candidate-pair' && stat.nominated === true && stat.state === 'succeeded');
  const outbound = stats.find((stat) => stat.type === 'outbound-rtp' && stat.kind === 'video');
  /** The stat the track names in `field`, else the first video stat of `type`. */
  const linked = (field: string, type: string): RtcStat | undefined =>
    (outbound && byId.get(str(outbound[field]) ?? '')) ?? stats.find((stat) => stat.type === type && stat.kind === 'video');
  const remote = linked('remoteId', 'remote-inbound-rtp');
  const source = linked('mediaSourceId', 'media-source');
  const codec = outbound && byId.get(str(outbound.codecId) ?? '');
  const channels = stats.filter((stat) => stat.type === 'data-channel');
  const channelTotal = (field: string): number | undefined =>
    channels.length > 0 ? channels.reduce((sum, channel) => sum + (num(channel[field]) ?? 0), 0) : undefined;

  const bytesSent = num(transport?.bytesSent) ?? num(pair?.bytesSent);
  const elapsed = previous ? at - previous.at : 0;
  const sendKbps =
    previous && bytesSent !== undefined && elapsed > 0 && bytesSent >= previous.bytesSent
      ? ((bytesSent - previous.bytesSent) * 8) / elapsed
      : undefined;
  const framesEncoded = num(outbound?.framesEncoded);
  const sourceFrames = num(source?.frames);
  const figures = defined<WebRtcFigures>({
    rttMs: ms(pair?.currentRoundTripTime) ?? ms(remote?.roundTripTime),
    sendKbps,
    availableKbps: kbps(pair?.availableOutgoingBitrate),
    targetKbps: kbps(outbound?.targetBitrate),
    packetsLost: num(remote?.packetsLost),
    fractionLost: num(remote?.fractionLost),
    jitterMs: ms(remote?.jitter),
    framesEncoded,
    framesDropped: framesEncoded !== undefined && sourceFrames !== undefined ? Math.max(0, sourceFrames - framesEncoded) : undefined,
    ...Object.fromEntries(TRACK_COUNTS.map((field) => [field, num(outbound?.[field])])),
    encoder: str(outbound?.encoderImplementation),
    codec: str(codec?.mimeType),
    qualityLimitation: str(outbound?.qualityLimitationReason),
    messagesSent: channelTotal('messagesSent'),
    messagesReceived: channelTotal('messagesReceived'),
  });
  return { figures, mark: bytesSent === undefined ? undefined : { at, bytesSent } };
}

/**
 * The gateway's own receiver statistics of the track win over the browser's RTCP view of them: the gateway's
 * WebRTC stack writes zero loss and zero jitter into the receiver reports it sends, so only its counts are true.
 */
export function withGatewayReceiveStats(figures: WebRtcFigures, received: WhipReceiveStats | undefined): WebRtcFigures {
  const video = received?.video[0];
  if (!video) return figures;
  const merged: WebRtcFigures = {
    ...figures,
    packetsLost: video.packetsLost,
    jitterMs: video.jitterMs,
    packetsReceived: video.packetsReceived,
  };
  delete merged.fractionLost; // the reports' share, from the same zeros
  return merged;
}
