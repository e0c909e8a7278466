/**
 * Reads a WHIP offer before the native stack sees it: a malformed offer becomes a reason for a 400 instead
 * of an exception deep in libdatachannel, and each video section keeps only the codecs the gateway can
 * depacketize (VP8, H.264 in packetization-mode 1), in the gateway's order of preference, which is the
 * order the answer offers the sender. Retransmission and FEC payload types (rtx, red, ulpfec) are
 * dropped: NACK stays, and without rtx the sender resends a lost packet as it was, in the same stream. The
 * transport-wide congestion-control feedback goes too: the receiver cannot send it, while REMB it can
 * (an answer that keeps transport-cc would leave the sender's estimate with no feedback at all).
 *
 * A `sendonly` video section is shown to libdatachannel as `sendrecv` (and its answer turned back to
 * `recvonly` by `restoreDirections`): libdatachannel drops anything but its own control messages on a
 * receive-only track, and the NACKs this gateway sends are written in JavaScript.
 */
import { WhipError } from './whip-error.ts';
import type { RtpVideoCodec } from '../rtp/frame-assembler.ts';

export interface OfferedVideo {
  mid: string;
  /** The offer said sendonly: the answer must say recvonly, whatever the stack was shown. */
  sendOnly: boolean;
  /** Payload type -> codec, for the packets of this section. */
  payloadTypes: Map<number, RtpVideoCodec>;
}

export interface PreparedOffer {
  /** The offer to give the stack, video codecs narrowed. */
  sdp: string;
  video: OfferedVideo[];
  /** The offer opens an SCTP association (m=application ... webrtc-datachannel). */
  dataChannels: boolean;
}

const MAX_OFFER_BYTES = 64 * 1024;

export function prepareOffer(offer: string, preference: readonly RtpVideoCodec[] = ['vp8', 'h264']): PreparedOffer {
  if (typeof offer !== 'string' || offer.length === 0) throw new WhipError('bad_sdp', 'empty offer');
  if (offer.length > MAX_OFFER_BYTES) throw new WhipError('bad_sdp', `offer larger than ${MAX_OFFER_BYTES} bytes`);
  const lines = offer.split(/\r?\n/).filter((line) => line.length > 0);
  if (lines[0] !== 'v=0') throw new WhipError('bad_sdp', 'not an SDP offer: the first line must be v=0');
  const bad = lines.find((line) => !/^[a-z]=/.test(line));
  if (bad !== undefined) throw new WhipError('bad_sdp', `malformed SDP line: ${JSON.stringify(bad.slice(0, 60))}`);
  const firstMedia = lines.findIndex((line) => line.startsWith('m='));
  if (firstMedia < 0) throw new WhipError('bad_sdp', 'the offer has no media section (m=)');
  const session = lines.slice(0, firstMedia);
  const sections = splitSections(lines.slice(firstMedia));

  const sessionHas = (prefix: string) => session.some((line) => line.startsWith(prefix));
  for (const section of sections) {
    const has = (prefix: string) => sessionHas(prefix) || section.some((line) => line.startsWith(prefix));
    if (isRejected(section)) continue;
    for (const needed of ['a=ice-ufrag:', 'a=ice-pwd:', 'a=fingerprint:']) {
      if (!has(needed)) throw new WhipError('bad_sdp', `media section "${section[0]}" has no ${needed.slice(2, -1)}`);
    }
  }

  const video: OfferedVideo[] = [];
  let dataChannels = false;
  const rewritten = sections.map((section) => {
    const kind = section[0]!.slice(2).split(' ')[0];
    if (kind === 'application' && section[0]!.includes('webrtc-datachannel')) dataChannels = true;
    if (kind !== 'video' || isRejected(section)) return section;
    const narrowed = narrowVideo(section, preference);
    video.push(narrowed.video);
    return narrowed.lines;
  });
  if (!dataChannels && video.length === 0) {
    throw new WhipError('unsupported_media', 'the offer has neither a video section nor a data channel');
  }
  return { sdp: [...session, ...rewritten.flat()].join('\r\n') + '\r\n', video, dataChannels };
}

function splitSections(lines: string[]): string[][] {
  const sections: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('m=')) sections.push([line]);
    else sections.at(-1)!.push(line);
  }
  return sections;
}

/** Port 0 in the m= line: the offerer already rejected this section (RFC 3264 section 6). */
function isRejected(section: string[]): boolean {
  return section[0]!.split(' ')[1] === '0';
}

function sectionMid(section: string[]): string {
  const line = section.find((l) => l.startsWith('a=mid:'));
  if (!line) throw new WhipError('bad_sdp', `media section "${section[0]}" has no a=mid (WHIP needs BUNDLE)`);
  return line.slice('a=mid:'.length).trim();
}

function narrowVideo(section: string[], preference: readonly RtpVideoCodec[]): { lines: string[]; video: OfferedVideo } {
  const mid = sectionMid(section);
  const sendOnly = section.includes('a=sendonly');
  const [media, port, proto, ...formats] = section[0]!.split(' ');
  const rtpmap = new Map<number, string>();
  const fmtp = new Map<number, string>();
  for (const line of section) {
    const map = /^a=rtpmap:(\d+) ([^/]+)\/(\d+)/.exec(line);
    if (map) rtpmap.set(Number(map[1]), map[2]!.toUpperCase());
    const params = /^a=fmtp:(\d+) (.*)$/.exec(line);
    if (params) fmtp.set(Number(params[1]), params[2]!);
  }
  const payloadTypes = new Map<number, RtpVideoCodec>();
  for (const format of formats) {
    const pt = Number(format);
    const name = rtpmap.get(pt);
    if (name === 'VP8') payloadTypes.set(pt, 'vp8');
    else if (name === 'H264' && /packetization-mode=1/.test(fmtp.get(pt) ?? '')) payloadTypes.set(pt, 'h264');
  }
  const kept = [...payloadTypes.keys()]
    .filter((pt) => preference.includes(payloadTypes.get(pt)!))
    .sort((a, b) => preference.indexOf(payloadTypes.get(a)!) - preference.indexOf(payloadTypes.get(b)!));
  if (kept.length === 0) {
    const offered = [...new Set(formats.map((f) => rtpmap.get(Number(f))).filter(Boolean))].join(', ');
    throw new WhipError('unsupported_media', `no supported video codec offered (${preference.join(', ')}); offered: ${offered || 'none'}`);
  }
  for (const pt of payloadTypes.keys()) if (!kept.includes(pt)) payloadTypes.delete(pt);
  const keep = new Set(kept);
  const lines = [[media, port, proto, ...kept].join(' ')];
  for (const line of section.slice(1)) {
    const perFormat = /^a=(?:rtpmap|fmtp|rtcp-fb):(\d+)/.exec(line);
    if (perFormat && !keep.has(Number(perFormat[1]))) continue;
    if (/^a=rtcp-fb:\d+ transport-cc$/.test(line)) continue;
    if (line === 'a=sendonly') {
      lines.push('a=sendrecv');
      continue;
    }
    if (/^a=extmap:\d+\S* \S*transport-wide-cc/.test(line)) continue;
    lines.push(line);
  }
  return { lines, video: { mid, sendOnly, payloadTypes } };
}

/** The stack's answer with each video section the offerer sends only set back to recvonly. */
export function restoreDirections(answer: string, video: readonly OfferedVideo[]): string {
  const sendOnlyMids = new Set(video.filter((v) => v.sendOnly).map((v) => v.mid));
  if (sendOnlyMids.size === 0) return answer;
  let mid: string | undefined;
  return answer
    .split('\r\n')
    .map((line) => {
      if (line.startsWith('m=')) mid = undefined;
      if (line.startsWith('a=mid:')) mid = line.slice('a=mid:'.length).trim();
      return mid !== undefined && sendOnlyMids.has(mid) && /^a=(?:sendrecv|sendonly)$/.test(line) ? 'a=recvonly' : line;
    })
    .join('\r\n');
}
