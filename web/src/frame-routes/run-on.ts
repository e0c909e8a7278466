/**
 * The routes a frame can take, and the *Run on* setting that picks them: each frame is computed by the
 * gateway (sent over the WebSocket or WebRTC), on this device (the model in a Web Worker), or both, alternating frame
 * by frame like the codec A/B mode, so the two are measured on the same pictures under the same conditions.
 */

export const RUN_ON_CHOICES = ['gateway', 'device', 'both'] as const;
export type RunOn = (typeof RUN_ON_CHOICES)[number];

/**
 * The route one frame takes: to the gateway, or to the model on this device (not to be confused with shared's
 * FramePath, the model's frame function and what it runs on).
 */
export type FrameRoute = 'gateway' | 'device';

export const RUN_ON_LABELS: Readonly<Record<RunOn, string>> = { gateway: 'Gateway', device: 'This device', both: 'Both' };
export const ROUTE_LABELS: Readonly<Record<FrameRoute, string>> = RUN_ON_LABELS;

export const RUN_ON_HINTS: Readonly<Record<RunOn, string>> = {
  gateway: 'Frames go to the gateway (over the chosen transport); it runs the model.',
  device: 'The model runs in this browser (onnxruntime-web in a Web Worker); nothing leaves the device.',
  both: 'Frames alternate: one to the gateway, the next on this device, each waiting for the other.',
};

/** Which routes can take a frame now: the gateway's socket is open, the model is loaded on this device. */
export interface RouteAvailability {
  gateway: boolean;
  device: boolean;
}

/**
 * The route of the frame with 0-based turn number `turn`, or undefined when the route the setting asks for
 * is not available. In `both`, even turns go to the gateway and odd ones to this device; while only one
 * of them is available (the model still loading, the gateway unreachable) every frame goes to that one.
 */
export function routeForFrame(turn: number, runOn: RunOn, available: RouteAvailability): FrameRoute | undefined {
  if (runOn === 'gateway') return available.gateway ? 'gateway' : undefined;
  if (runOn === 'device') return available.device ? 'device' : undefined;
  if (available.gateway && available.device) return turn % 2 === 0 ? 'gateway' : 'device';
  if (available.gateway) return 'gateway';
  if (available.device) return 'device';
  return undefined;
}

/** Whether the setting runs the model on this device at all (so it must be loaded). */
export function usesDevice(runOn: RunOn): boolean {
  return runOn !== 'gateway';
}

/** Whether the setting sends frames to the gateway. */
export function usesGateway(runOn: RunOn): boolean {
  return runOn !== 'device';
}
