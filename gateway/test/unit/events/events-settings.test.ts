/** The events settings: defaults, what each accepts, and a refusal naming the variable. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, loadConfig, parseConfig } from '../../../src/config.ts';

describe('events settings', () => {
  it('default to a bounded history, MQTT and webhooks off, discovery off', () => {
    expect(DEFAULT_CONFIG).toMatchObject({
      eventsMaxAgeDays: 30,
      eventsMaxRows: 1_000_000,
      eventsBacklogMax: 100_000,
      mqttTopicPrefix: 'sightline',
      mqttDiscovery: false,
      mqttDiscoveryPrefix: 'homeassistant',
      webhookTimeoutMs: 5000,
    });
    expect(DEFAULT_CONFIG.mqttUrl).toBeUndefined();
    expect(DEFAULT_CONFIG.webhookUrl).toBeUndefined();
  });

  it('read discovery as on/off, and the flag alone as on', () => {
    for (const [value, on] of [
      ['on', true],
      ['1', true],
      ['true', true],
      ['off', false],
      ['0', false],
      ['false', false],
    ] as const) {
      expect(parseConfig({ mqttDiscovery: value }).mqttDiscovery).toBe(on);
    }
    expect(loadConfig(['--mqtt-discovery']).mqttDiscovery).toBe(true);
    expect(loadConfig(['--mqtt-discovery', 'off']).mqttDiscovery).toBe(false);
    expect(() => parseConfig({ mqttDiscovery: 'maybe' })).toThrow(/SIGHTLINE_MQTT_DISCOVERY/);
  });

  it('take broker and webhook URLs of their schemes only, and a topic prefix without wildcards', () => {
    expect(parseConfig({ mqttUrl: 'mqtts://user:pw@broker:8883' }).mqttUrl).toBe('mqtts://user:pw@broker:8883');
    expect(() => parseConfig({ mqttUrl: 'http://broker' })).toThrow(/SIGHTLINE_MQTT_URL/);
    expect(() => parseConfig({ webhookUrl: 'ftp://x' })).toThrow(/SIGHTLINE_WEBHOOK_URL/);
    expect(parseConfig({ mqttTopicPrefix: 'site/a' }).mqttTopicPrefix).toBe('site/a');
    expect(() => parseConfig({ mqttTopicPrefix: 'a/#' })).toThrow(/SIGHTLINE_MQTT_TOPIC_PREFIX/);
    expect(() => parseConfig({ mqttTopicPrefix: 'a/' })).toThrow(/SIGHTLINE_MQTT_TOPIC_PREFIX/);
    expect(() => parseConfig({ eventsMaxRows: 10 })).toThrow(/SIGHTLINE_EVENTS_MAX_ROWS/);
  });
});
