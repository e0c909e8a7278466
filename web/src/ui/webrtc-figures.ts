/**
 * The WebRTC panel's rows: the peer connection's own statistics (webrtc/rtc-stats.ts) in words, those of the
 * mode in use (the video track's encoder and RTCP figures, the data channel's messages and its loss timeout).
 * Pure, so the wording is unit-tested; each row also carries its raw number for data-value.
 */
import type { TransportView } from '../app/dashboard-snapshot.ts';
import { TRANSPORT_MODE_LABELS } from '../transport/transports.ts';
import { formatCount, formatMs, formatNumber } from './format.ts';

export interface FigureRow {
  /** data-testid `rtc-<key>`. */
  key: string;
  label: string;
  /** The raw number (data-value), when the row is a number. */
  value?: number;
  text: string;
  title: string;
}

const kbit = (value: number | undefined): string =>
  value === undefined ? '–' : value >= 1000 ? `${formatNumber(value / 1000, 2)} Mbit/s` : `${formatNumber(value, 0)} kbit/s`;
const count = (value: number | undefined): string => (value === undefined ? '–' : formatCount(value));

/** The rows for the transport in use; none over the WebSocket. */
export function webRtcRows(view: TransportView): FigureRow[] {
  if (view.mode === 'websocket') return [];
  const figures = view.rtc?.figures ?? {};
  const rows: FigureRow[] = [
    { key: 'mode', label: 'Path', text: TRANSPORT_MODE_LABELS[view.mode], title: 'How frames reach the gateway' },
    {
      key: 'rtt',
      label: 'RTT',
      value: figures.rttMs,
      text: formatMs(figures.rttMs),
      title: 'Round trip on the selected ICE candidate pair (STUN consent checks); the link alone',
    },
    {
      key: 'send-bitrate',
      label: 'Sending',
      value: figures.sendKbps,
      text: kbit(figures.sendKbps),
      title: 'Bits sent per second over the peer connection (all media and data), over the last second',
    },
    {
      key: 'available-bitrate',
      label: 'Available',
      value: figures.availableKbps,
      text: kbit(figures.availableKbps),
      title: 'What the congestion controller estimates the link takes',
    },
  ];
  if (view.mode === 'track') {
    rows.push(
      {
        key: 'model',
        label: 'Model',
        text: 'the gateway’s default',
        title:
          'A WHIP session names no model or score threshold: the track’s frames are detected with the gateway’s default model at its own threshold (the detections list names the model that ran)',
      },
      {
        key: 'target-bitrate',
        label: 'Encoder target',
        value: figures.targetKbps,
        text: kbit(figures.targetKbps),
        title: 'The bitrate the video encoder aims at (at most the Video bitrate setting)',
      },
      {
        key: 'packets-lost',
        label: 'Packets lost',
        value: figures.packetsLost,
        text:
          figures.packetsLost === undefined
            ? '–'
            : `${count(figures.packetsLost)} of ${count(figures.packetsSent)}${figures.fractionLost ? ` (${formatNumber(figures.fractionLost * 100, 1)} % now)` : ''}`,
        title: 'Packets the gateway counted lost (its receiver statistics, from its WHIP session), of those this browser sent',
      },
      {
        key: 'jitter',
        label: 'Jitter',
        value: figures.jitterMs,
        text: formatMs(figures.jitterMs),
        title: 'Interarrival jitter of the packets as the gateway received them (RFC 3550)',
      },
      {
        key: 'frames-encoded',
        label: 'Frames encoded',
        value: figures.framesEncoded,
        text: `${count(figures.framesEncoded)}${figures.framesPerSecond !== undefined ? ` · ${formatNumber(figures.framesPerSecond, 0)} fps` : ''}`,
        title: 'Frames the browser encoded and sent on the track, and its frame rate now',
      },
      {
        key: 'frames-dropped',
        label: 'Frames dropped',
        value: figures.framesDropped,
        text: count(figures.framesDropped),
        title: 'Camera frames the sender never encoded (the encoder or the bandwidth kept up with fewer)',
      },
      {
        key: 'encoder',
        label: 'Encoder',
        text:
          [figures.codec?.replace(/^video\//, ''), figures.encoder, figures.frameWidth && `${figures.frameWidth}×${figures.frameHeight}`]
            .filter(Boolean)
            .join(' · ') || '–',
        title: 'Codec, encoder implementation and the size it sends',
      },
      {
        key: 'limited-by',
        label: 'Limited by',
        text: figures.qualityLimitation ?? '–',
        title: 'What holds the encoder back: cpu, bandwidth, or none',
      },
      {
        key: 'keyframes',
        label: 'Keyframes · PLI · NACK',
        text: `${count(figures.keyFramesEncoded)} · ${count(figures.pliCount)} · ${count(figures.nackCount)}`,
        title: 'Keyframes encoded, keyframes the gateway asked for (PLI), retransmissions it asked for (NACK)',
      },
      {
        key: 'unmatched',
        label: 'Unmatched results',
        value: view.unmatched,
        text:
          // Short: the panel's column is narrow; the title says what "early" is.
          view.overtaken > 0 ? `${count(view.unmatched)} · ${count(view.overtaken)} early` : count(view.unmatched),
        title:
          'Detections naming an RTP timestamp this page did not send (or no longer keeps); after the dot, those ("early") that arrived before the report of the frame they name and were matched when it came',
      },
    );
  } else {
    rows.push(
      {
        key: 'messages',
        label: 'Messages ↑ · ↓',
        value: figures.messagesSent,
        text: `${count(figures.messagesSent)} · ${count(figures.messagesReceived)}`,
        title: 'Messages sent and received on the data channel',
      },
      {
        key: 'loss-timeout',
        label: 'Lost after',
        value: view.lossTimeoutMs,
        text: formatMs(view.lossTimeoutMs),
        title: 'A frame whose answer is this late counts as lost (3× the p95 of recent answers, 1 to 5 s): the channel does not retransmit',
      },
    );
  }
  return rows;
}
