/**
 * `@sightline/shared/link`: emulated network links, shared by the gateway, the dashboard and the
 * benchmark. Pure TypeScript: no Node or DOM API (files, sockets and TUN devices are the callers' business).
 *
 * ```ts
 * const profile = parseLinkSpec('lte');                     // or 'bw=2mbit/10mbit,delay=40ms,loss=1%'
 * linkLabel(profile);                                       // 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated'
 * const up = new StreamLink(profile.up, { seed: 1 });       // a byte stream: write(now, bytes) / takeDue(now)
 * const udp = new DatagramLink(profile.down, { seed: 2 });  // packets: send(now, packet, bytes) -> fate
 * new DeliveryPump(up, (bytes) => socket.write(bytes)).poke(); // real time
 * ```
 */
export { Bottleneck } from './bottleneck.ts';
export {
  DatagramLink,
  DEFAULT_MAX_HELD_BYTES,
  type DatagramCounters,
  type DatagramFate,
  type DatagramLinkOptions,
} from './datagram-link.ts';
export { createLossProcess, GilbertElliott, type LossProcess } from './loss.ts';
export { findPreset, LINK_PRESET_NAMES, LINK_PRESETS, type LinkPreset } from './presets.ts';
export {
  DEFAULT_QUEUE_MS,
  isTransparent,
  linkDirectionSchema,
  linkProfileSchema,
  lossModelSchema,
  lossRateOf,
  MAX_DELAY_MS,
  MAX_QUEUE_BYTES,
  MAX_RATE_BPS,
  MIN_RATE_BPS,
  MTU_BYTES,
  NO_DIRECTION,
  queueLimitBytes,
  queueLimitSchema,
  streamLimitations,
  type LinkDirection,
  type LinkProfile,
  type LossModel,
  type QueueLimit,
} from './profile.ts';
export { DEFAULT_SPIN_MS, DeliveryPump, realTimers, type DeliverySource, type LinkTimers } from './pump.ts';
export { deriveSeed, freshSeed, seededRandom, type Random } from './random.ts';
export { ConstantRate, TraceRate, Unlimited, type Serializer } from './serializer.ts';
export { formatLinkSpec, linkLabel, LinkSpecError, parseLinkSpec, sameLink } from './spec.ts';
export {
  DEFAULT_WINDOW_BYTES,
  STREAM_END,
  StreamLink,
  streamWireBytes,
  TCP_HEADER_BYTES,
  TCP_MSS,
  type StreamItem,
  type StreamLinkOptions,
} from './stream-link.ts';
export { constantTrace, MAX_TRACE_LINES, parseMahimahiTrace, TraceError, traceOf, type Trace } from './trace.ts';
export {
  formatDuration,
  formatPercent,
  formatRate,
  formatSize,
  humanRate,
  parseDuration,
  parsePercent,
  parseRate,
  parseSize,
} from './units.ts';
