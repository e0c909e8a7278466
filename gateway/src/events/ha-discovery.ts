/**
 * Home Assistant MQTT discovery for the counts: one sensor per rule and kind (a line's `in` and `out`, a zone's
 * `enter` and `leave`), reading its value from the rule's retained counts topic, grouped in one device per camera,
 * available while this gateway's availability topic says `online`. Configs are retained, so Home Assistant finds
 * them whenever it starts; a rule removed has its configs replaced by empty payloads, which removes its sensors.
 * https://www.home-assistant.io/integrations/mqtt/#mqtt-discovery
 */
import { createHash } from 'node:crypto';
import type { CameraRules, CountKind } from '@sightline/shared/events';
import { availabilityTopic, countsTopic, OFFLINE, ONLINE } from './mqtt-topics.ts';

export interface DiscoveryOptions {
  /** Home Assistant's discovery prefix (`homeassistant`). */
  discoveryPrefix: string;
  topicPrefix: string;
  instance: string;
}

export interface DiscoveryMessage {
  topic: string;
  /** The retained config (JSON); empty removes the sensor. */
  payload: string;
}

const LINE_KINDS: readonly CountKind[] = ['in', 'out'];
const ZONE_KINDS: readonly CountKind[] = ['enter', 'leave'];
const ICONS: Record<CountKind, string> = {
  in: 'mdi:arrow-right-bold-circle-outline',
  out: 'mdi:arrow-left-bold-circle-outline',
  enter: 'mdi:location-enter',
  leave: 'mdi:location-exit',
};

/** The kinds a rule of this name counts (a line and a zone may share a name: both). */
export function kindsOf(rules: CameraRules, rule: string): CountKind[] {
  return [
    ...(rules.lines.some((line) => line.name === rule) ? LINE_KINDS : []),
    ...(rules.zones.some((zone) => zone.name === rule) ? ZONE_KINDS : []),
  ];
}

/** Every (rule, kind) of a camera's rules. */
export function sensorsOf(rules: CameraRules): Array<{ rule: string; kind: CountKind }> {
  return [
    ...rules.lines.flatMap((line) => LINE_KINDS.map((kind) => ({ rule: line.name, kind }))),
    ...rules.zones.flatMap((zone) => ZONE_KINDS.map((kind) => ({ rule: zone.name, kind }))),
  ];
}

/**
 * An id made of what Home Assistant allows in ids and topics (letters, digits, `_`, `-`); a name that had to be
 * changed to fit gets a short hash of the real one, so two names changed alike stay apart.
 */
export function idPart(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return safe === name ? name : `${safe}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`;
}

export function discoveryTopic(options: DiscoveryOptions, camera: string, rule: string, kind: CountKind): string {
  return `${options.discoveryPrefix}/sensor/sightline_${idPart(camera)}/${idPart(rule)}_${kind}/config`;
}

/** The configs of a camera's sensors. */
export function discoveryMessages(options: DiscoveryOptions, camera: string, rules: CameraRules): DiscoveryMessage[] {
  return sensorsOf(rules).map(({ rule, kind }) => ({
    topic: discoveryTopic(options, camera, rule, kind),
    payload: JSON.stringify({
      name: `${rule} ${kind}`,
      unique_id: `sightline_${idPart(camera)}_${idPart(rule)}_${kind}`,
      state_topic: countsTopic(options.topicPrefix, camera, rule),
      // `in` is a Jinja keyword: the kinds are read by subscript.
      value_template: `{{ value_json.totals['${kind}'] | int(0) }}`,
      json_attributes_topic: countsTopic(options.topicPrefix, camera, rule),
      json_attributes_template: `{{ value_json.counts['${kind}'] | default({}) | tojson }}`,
      state_class: 'total_increasing',
      icon: ICONS[kind],
      availability_topic: availabilityTopic(options.topicPrefix, options.instance),
      payload_available: ONLINE,
      payload_not_available: OFFLINE,
      device: {
        identifiers: [`sightline_${idPart(camera)}`],
        name: `Sightline ${camera}`,
        manufacturer: 'Sightline',
        model: 'Camera rules',
      },
      origin: { name: 'Sightline' },
    }),
  }));
}

/** The empty configs that remove the sensors of rules in `before` and no longer in `after`. */
export function discoveryRemovals(options: DiscoveryOptions, camera: string, before: CameraRules, after: CameraRules): DiscoveryMessage[] {
  const kept = new Set(discoveryMessages(options, camera, after).map((message) => message.topic));
  return discoveryMessages(options, camera, before)
    .filter((message) => !kept.has(message.topic))
    .map((message) => ({ topic: message.topic, payload: '' }));
}
