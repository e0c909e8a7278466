/**
 * The unit of `pnpm bench:links`: one transport row on one link. A row is anything that can send frames to
 * the gateway and say what became of them: the benchmark client's transports (bench-client-rows.ts), and later
 * WebRTC's data channel and video track (`runWebRtcCell` in bench/webrtc/), which join by being listed in
 * rows.ts: the planner, the runner, the table and the charts only ever see these types.
 */
import type { LinkProfile } from '@sightline/shared/link';
import type { HelloMessage } from '@sightline/shared/protocol';

/**
 * What carries a link for a row:
 * - `loopback`: no link (the `none` row of the table);
 * - `proxy`: the user-space TCP proxy (bench/link/link-proxy.ts): rate, queue, delay, jitter; no loss; no root;
 * - `packet`: real packets through a network namespace (bench/link/packet/): loss too, real TCP; root;
 * - `self`: the row applies the link itself, e.g. the datagram engine on its own UDP or SCTP packets.
 */
export type LinkPathKind = 'loopback' | 'proxy' | 'packet' | 'self';

/** A link of the table: a name for people, the spec that makes it, and the profile it parses to. */
export interface LinkEntry {
  name: string;
  /** What the table calls it. */
  title: string;
  /** The `--link` spec (`none` for no link). */
  spec: string;
  profile: LinkProfile;
}

/** What a row is given to run one round of one cell. */
export interface CellContext {
  /** The gateway as this host reaches it without any link (loopback). */
  gatewayUrl: string;
  link: LinkEntry;
  /** What carries the link for this cell (the row's own choice among `paths`, made by the planner). */
  path: LinkPathKind;
  /** Seed of the link's draws (jitter; loss on the packet path), different per round, printed with the commands. */
  seed: number;
  /** How much the round measures: seconds, or frames (a stop-and-wait row sends them one after the other). */
  measure: Measure;
  /** Frames sent and discarded before the measured phase. */
  warmup: number;
  /** A frame without an answer after this long is lost. */
  timeoutMs: number;
  /** The frames every row sends: the same pictures for every transport and codec. */
  frames: FrameSource;
}

export type Measure = { seconds: number } | { frames: number };

/**
 * The pictures a cell sends, at a size: the moving clip made from the fixture photos (`clip`, what video and
 * JPEG rows can share), or the fixture photos themselves, cycling (`photos`).
 */
export interface FrameSource {
  kind: 'clip' | 'photos';
  width: number;
  height: number;
  /** Frames of the clip (it loops). */
  count: number;
  /** Video rows: the target bitrate and keyframe interval of the stream. */
  bitrateKbps: number;
  keyframeInterval: number;
}

/**
 * What one round of a cell measured, as raw totals so that rounds pool by adding them up. Frames are counted
 * in the measured phase only.
 */
export interface CellMeasurement {
  /** Frames that went out. */
  sent: number;
  /** Answered with detections. */
  ok: number;
  /** Answered with a refusal (`dropped`) or an error. */
  refused: number;
  /** Never answered: timed out, or their connection broke. */
  lost: number;
  /** Refusal and loss reasons with counts (`dropped:superseded`, `error:overloaded`, `timeout`...). */
  reasons: Record<string, number>;
  /** Wall time of the measured phase, ms. */
  wallMs: number;
  /** Full-process latency of every frame answered with detections, ms. */
  latenciesMs: number[];
  /** The gateway's own time for those frames (serverMs), ms. */
  serverMs: number[];
  /** Bytes on the wire both ways of the frames that got an answer, and how many those were. */
  answered: number;
  answeredBytesUp: number;
  answeredBytesDown: number;
  /** Bytes up of every frame sent (lost ones included): the uplink the row used. */
  sentBytesUp: number;
  /** Command lines that reproduce the round (against a gateway named $GATEWAY). */
  commands: string[];
}

/** A row of the table: one transport and codec, and how to run it. */
export interface TransportRow {
  /** Stable id, for --rows and the output: `ws-msgpack`, `rest-json`, `ws-vp8`, later `webrtc-dc`... */
  id: string;
  /** Column values: `WebSocket`, `REST (new connection per frame)`, `WebRTC data channel`... */
  transport: string;
  codec: string;
  /** The paths that can carry this row's traffic, preferred first; `loopback` is implied for no link. */
  paths: ReadonlyArray<Exclude<LinkPathKind, 'loopback'>>;
  /**
   * Frames may go unanswered by design (an unordered channel without retransmissions; a video track whose
   * server detects only the newest picture): a lost frame is a figure of the row, not a fault of the run.
   */
  losesFramesByDesign?: boolean;
  /** Why this gateway cannot serve the row (its hello names no decoder for the codec, say); undefined: it can. */
  unavailable?(hello: HelloMessage | undefined): string | undefined;
  run(context: CellContext): Promise<CellMeasurement>;
}
