/**
 * What the gateway publishes to MQTT, and where:
 *   <prefix>/<camera>/events          every event, JSON (a StoredEvent), QoS 1, in order per camera
 *   <prefix>/<camera>/counts/<rule>   the rule's counts, JSON (CountsPayload), retained: the latest is always there
 *   <prefix>/<instance>/availability  `online` (retained) while connected; `offline` on a clean stop, and as the
 *                                     last will when the gateway vanishes
 * Camera names are topic-safe by their pattern; a rule's name or the instance may hold `/`, `+` or `#`, which are
 * replaced by `_` in a topic (the payload keeps the real name).
 */
import type { CountKind, RuleCount } from '@sightline/shared/events';

export const ONLINE = 'online';
export const OFFLINE = 'offline';

/** `name` as one level of a topic: no level separator, no wildcard, no NUL. */
export function topicLevel(name: string): string {
  return name.replace(/[/+#]/g, '_').replaceAll('\u0000', '_');
}

export const eventsTopic = (prefix: string, camera: string) => `${prefix}/${topicLevel(camera)}/events`;
export const countsTopic = (prefix: string, camera: string, rule: string) => `${prefix}/${topicLevel(camera)}/counts/${topicLevel(rule)}`;
export const availabilityTopic = (prefix: string, instance: string) => `${prefix}/${topicLevel(instance)}/availability`;

/**
 * A rule's counts as published: per kind (a line's `in`/`out`, a zone's `enter`/`leave`) and label, and the
 * totals per kind (every kind of the rule present, 0 before its first event), e.g.
 * `{"camera":"door","rule":"threshold","counts":{"in":{"person":3},"out":{"person":1}},"totals":{"in":3,"out":1}}`.
 */
export interface CountsPayload {
  camera: string;
  rule: string;
  counts: Partial<Record<CountKind, Record<string, number>>>;
  totals: Partial<Record<CountKind, number>>;
}

export function countsPayload(camera: string, rule: string, kinds: readonly CountKind[], counts: readonly RuleCount[]): CountsPayload {
  const payload: CountsPayload = { camera, rule, counts: {}, totals: {} };
  for (const kind of kinds) {
    payload.counts[kind] = {};
    payload.totals[kind] = 0;
  }
  for (const count of counts) {
    if (count.rule !== rule) continue;
    (payload.counts[count.kind] ??= {})[count.label] = count.count;
    payload.totals[count.kind] = (payload.totals[count.kind] ?? 0) + count.count;
  }
  return payload;
}
