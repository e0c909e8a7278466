/**
 * What goes to MQTT besides events: topics safe whatever a rule is called, a rule's counts with its totals, and
 * Home Assistant discovery configs (a sensor per rule and kind, reading the counts topic, grouped per camera),
 * emptied for the rules removed.
 */
import { describe, expect, it } from 'vitest';
import type { CameraRules } from '@sightline/shared/events';
import { discoveryMessages, discoveryRemovals, idPart, kindsOf } from '../../../src/events/ha-discovery.ts';
import { availabilityTopic, countsPayload, countsTopic, eventsTopic, topicLevel } from '../../../src/events/mqtt-topics.ts';

const RULES: CameraRules = {
  lines: [{ name: 'door', from: [0.5, 0], to: [0.5, 1] }],
  zones: [
    {
      name: 'desk/1',
      polygon: [
        [0, 0],
        [0.5, 0],
        [0.5, 0.5],
      ],
    },
  ],
};
const OPTIONS = { discoveryPrefix: 'homeassistant', topicPrefix: 'sightline', instance: 'gw-1' };

describe('MQTT topics', () => {
  it('put the camera and the rule in one level each, wildcards and separators replaced', () => {
    expect(eventsTopic('sightline', 'gate')).toBe('sightline/gate/events');
    expect(countsTopic('site/a', 'gate', 'in/out #1+')).toBe('site/a/gate/counts/in_out _1_');
    expect(availabilityTopic('sightline', 'host/7')).toBe('sightline/host_7/availability');
    expect(topicLevel('a\u0000b')).toBe('a_b');
  });

  it("give a rule's counts per kind and label, with totals for each of its kinds (0 before any event)", () => {
    const counts = [
      { rule: 'door', kind: 'in' as const, label: 'person', count: 3 },
      { rule: 'door', kind: 'in' as const, label: 'dog', count: 1 },
      { rule: 'other', kind: 'in' as const, label: 'person', count: 9 },
    ];
    expect(countsPayload('gate', 'door', ['in', 'out'], counts)).toEqual({
      camera: 'gate',
      rule: 'door',
      counts: { in: { person: 3, dog: 1 }, out: {} },
      totals: { in: 4, out: 0 },
    });
  });
});

describe('Home Assistant discovery', () => {
  it('announces one sensor per rule and kind, on the counts topic, in a device per camera', () => {
    const messages = discoveryMessages(OPTIONS, 'gate', RULES);
    expect(messages.map((m) => m.topic)).toEqual([
      'homeassistant/sensor/sightline_gate/door_in/config',
      'homeassistant/sensor/sightline_gate/door_out/config',
      `homeassistant/sensor/sightline_gate/${idPart('desk/1')}_enter/config`,
      `homeassistant/sensor/sightline_gate/${idPart('desk/1')}_leave/config`,
    ]);
    const config = JSON.parse(messages[0]!.payload) as Record<string, unknown>;
    expect(config).toMatchObject({
      name: 'door in',
      unique_id: 'sightline_gate_door_in',
      state_topic: 'sightline/gate/counts/door',
      value_template: "{{ value_json.totals['in'] | int(0) }}",
      state_class: 'total_increasing',
      availability_topic: 'sightline/gw-1/availability',
      payload_available: 'online',
      payload_not_available: 'offline',
      device: { identifiers: ['sightline_gate'], name: 'Sightline gate' },
    });
    const zone = JSON.parse(messages[2]!.payload) as Record<string, unknown>;
    expect(zone.state_topic).toBe('sightline/gate/counts/desk_1');
    expect(idPart('desk/1')).toMatch(/^desk_1_[0-9a-f]{8}$/);
    expect(idPart('desk_1')).toBe('desk_1');
  });

  it('empties the configs of the rules removed, and of those only', () => {
    const after: CameraRules = { lines: RULES.lines, zones: [] };
    expect(discoveryRemovals(OPTIONS, 'gate', RULES, after)).toEqual([
      { topic: `homeassistant/sensor/sightline_gate/${idPart('desk/1')}_enter/config`, payload: '' },
      { topic: `homeassistant/sensor/sightline_gate/${idPart('desk/1')}_leave/config`, payload: '' },
    ]);
    expect(kindsOf(RULES, 'door')).toEqual(['in', 'out']);
    expect(kindsOf(after, 'desk/1')).toEqual([]);
  });
});
