/**
 * The kernel's own shaping for a link direction, for comparison with the user-space engine: a token bucket
 * (`tc qdisc ... tbf`) on a device's egress gives the rate and a byte-limited queue. This kernel has no
 * netem, so delay, jitter and loss stay in user space; nftables' `numgen random` could drop packets at
 * random but not in bursts, and its `nft` tool is not installed here (the forwarder drops them instead).
 */
import { queueLimitBytes, type LinkDirection } from '@sightline/shared/link';

/** Bucket depth: 4 ms of the rate (a 250 Hz kernel tick), at least two full packets. */
export function tbfBurstBytes(rateBps: number): number {
  return Math.max(3000, Math.ceil(rateBps / 8 / 250));
}

/** `tc` arguments that shape `device`'s egress like `direction` (rate and queue only); undefined when it has no rate. */
export function tbfArguments(device: string, direction: LinkDirection): string[] | undefined {
  if (direction.traceFile !== undefined)
    throw new Error('the kernel shaper has no trace-driven rate (tbf is a constant rate): use the user-space shaper');
  if (direction.rateBps === undefined) return undefined;
  const limit = queueLimitBytes(direction, direction.rateBps)!;
  const burst = tbfBurstBytes(direction.rateBps);
  return [
    'qdisc',
    'replace',
    'dev',
    device,
    'root',
    'tbf',
    'rate',
    `${Math.round(direction.rateBps)}bit`,
    'burst',
    String(burst),
    'limit',
    String(Math.max(limit, burst)),
  ];
}

/** What the forwarder still does when the kernel shapes: delay, jitter and loss, no rate or queue. */
export function withoutShaping(direction: LinkDirection): LinkDirection {
  const { rateBps: _rate, queue: _queue, ...rest } = direction;
  return rest;
}
