/**
 * Gateway or this device: which is faster right now on this device and link, and by how much, in one
 * plain sentence. Per frame means the median, over each route's last frames, of what a frame costs end
 * to end: through the gateway, the frame message sent to its answer decoded (network both ways, the
 * gateway's queue, decode, inference, boxes); on this device, the frame handed to the inference worker
 * to its detections (image decode, tensor, inference, boxes). Pure, so the wording is unit-tested.
 */
import { percentile } from '@sightline/shared/stats';
import type { FrameRoute, RunOn } from '../frame-routes/run-on.ts';
import type { FrameStats } from '../metrics/sample-store.ts';
import { formatMs } from './format.ts';

/** Frames each route needs in the window before they are compared. */
export const MIN_FRAMES_TO_COMPARE = 5;
/** Medians closer than this fraction of the slower one are "about even". */
export const EVEN_WITHIN = 0.05;
/** When either route's newest frame is older than this, the sentence says "when last compared" instead of "right now". */
export const STALE_AFTER_MS = 15_000;
/** Frames per route the verdict is taken over: recent enough to say "right now". */
export const VERDICT_WINDOW = 30;

export type Faster = FrameRoute | 'even';

export interface RouteComparison {
  /** Undefined until both routes have MIN_FRAMES_TO_COMPARE frames. */
  faster?: Faster;
  /** Median per-frame time on this device and through the gateway, ms. */
  deviceMs?: number;
  gatewayMs?: number;
  /** Slower median / faster median (>= 1). */
  ratio?: number;
  /** Slower median - faster median, ms. */
  savedMs?: number;
  /** Both routes measured within STALE_AFTER_MS of now. */
  current: boolean;
  /** The sentence shown. */
  text: string;
}

export interface ComparisonContext {
  runOn: RunOn;
  /** performance.now() */
  now: number;
  /** Median ping RTT on the frames' socket, ms, when known. */
  pingMs?: number | undefined;
}

/** "2.7×", "1.15×": two significant decimals below 2, one above. */
export function formatRatio(ratio: number): string {
  return `${ratio < 2 ? ratio.toFixed(2).replace(/0$/, '') : ratio.toFixed(1)}×`;
}

function ago(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} s ago`;
  return `${Math.round(seconds / 60)} min ago`;
}

export function compareRoutes(device: FrameStats, gateway: FrameStats, context: ComparisonContext): RouteComparison {
  const needDevice = Math.max(0, MIN_FRAMES_TO_COMPARE - device.count);
  const needGateway = Math.max(0, MIN_FRAMES_TO_COMPARE - gateway.count);
  if (needDevice > 0 || needGateway > 0) {
    if (context.runOn !== 'both') {
      return {
        current: false,
        text: 'Pick Run on: Both to compare this device with the gateway on the same frames, one frame each in turn.',
      };
    }
    const missing = [
      needDevice > 0 ? `${needDevice} more on this device` : '',
      needGateway > 0 ? `${needGateway} more through the gateway` : '',
    ].filter(Boolean);
    return { current: false, text: `Measuring both paths: ${missing.join(' and ')} before comparing.` };
  }

  const deviceMs = device.full.p50;
  const gatewayMs = gateway.full.p50;
  const slower = Math.max(deviceMs, gatewayMs);
  const quicker = Math.min(deviceMs, gatewayMs);
  const ratio = slower / quicker;
  const savedMs = slower - quicker;
  const age = context.now - Math.min(device.lastAnsweredPerf, gateway.lastAnsweredPerf);
  const current = age <= STALE_AFTER_MS;
  const when = current ? 'right now' : `when last compared, ${ago(age)}`;
  const link = context.pingMs !== undefined && Number.isFinite(context.pingMs) ? ` (network round trip ${formatMs(context.pingMs)})` : '';
  const figures = { deviceMs, gatewayMs, ratio, savedMs, current };

  if (savedMs <= slower * EVEN_WITHIN) {
    return {
      ...figures,
      faster: 'even',
      text: `About even ${when}: ${formatMs(deviceMs)} per frame on this device, ${formatMs(gatewayMs)} through the gateway${link}.`,
    };
  }
  const by = `${formatRatio(ratio)} as fast, ${formatMs(savedMs)} less per frame`;
  if (deviceMs < gatewayMs) {
    return {
      ...figures,
      faster: 'device',
      text: `This device is faster ${when}: ${formatMs(deviceMs)} per frame here against ${formatMs(gatewayMs)} through the gateway${link}, ${by}.`,
    };
  }
  return {
    ...figures,
    faster: 'gateway',
    text: `The gateway is faster ${when}: ${formatMs(gatewayMs)} per frame through it${link} against ${formatMs(deviceMs)} on this device, ${by}.`,
  };
}

/** The median of the last `count` ping round trips, ms; undefined without pings. */
export function recentPingMs(rtts: readonly number[], count = 10): number | undefined {
  const recent = rtts.slice(-count).sort((a, b) => a - b);
  return recent.length === 0 ? undefined : percentile(recent, 50);
}
