import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@sightline/shared/protocol';
import type { DetectionRow } from '../../../src/metrics/detection-log.ts';
import {
  CSV_COLUMNS,
  DETECTION_COLUMNS,
  detectionsToCsv,
  exportFilename,
  samplesToCsv,
  samplesToJson,
} from '../../../src/metrics/export.ts';
import type { FrameSample } from '../../../src/metrics/frame-sample.ts';

const base: FrameSample = {
  id: 1,
  path: 'gateway',
  codec: 'msgpack',
  transport: 'websocket',
  model: 'ssdlite-mobilenetv2-coco',
  sentAt: 1_763_821_800_123.5,
  sentPerf: 10,
  answeredPerf: 52,
  fullMs: 42,
  serverMs: 30.25,
  inferenceMs: 20.125,
  networkQueueMs: 11.75,
  bytesUp: 10_240,
  bytesDown: 512,
  outcome: 'ok',
  detections: 3,
  reason: null,
  skippedBefore: 0,
  link: 'lte',
};

describe('samplesToCsv', () => {
  it('starts with the agreed header row', () => {
    const [header] = samplesToCsv([]).split('\r\n');
    expect(header).toBe(
      'id,codec,model,sentAt,fullMs,serverMs,inferenceMs,networkQueueMs,bytesUp,bytesDown,outcome,detections,path,transport,link',
    );
    expect(CSV_COLUMNS).toHaveLength(15);
  });

  it('writes one CRLF-terminated row per sample, empty cells for missing values', () => {
    const csv = samplesToCsv([
      base,
      {
        ...base,
        id: 2,
        codec: 'vp8',
        transport: 'webrtc',
        link: 'none',
        outcome: 'dropped',
        serverMs: null,
        inferenceMs: null,
        networkQueueMs: null,
        detections: 0,
      },
    ]);
    const lines = csv.split('\r\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(lines[1]).toBe('1,msgpack,ssdlite-mobilenetv2-coco,1763821800123.5,42,30.25,20.125,11.75,10240,512,ok,3,gateway,websocket,lte');
    expect(lines[2]).toBe('2,vp8,ssdlite-mobilenetv2-coco,1763821800123.5,42,,,,10240,512,dropped,0,gateway,webrtc,none');
  });

  it('quotes fields with separators or quotes (RFC 4180)', () => {
    const csv = samplesToCsv([{ ...base, model: 'odd,"model"' }]);
    expect(csv.split('\r\n')[1]).toContain(',"odd,""model""",');
  });

  it('says which link each frame crossed: a custom spec quoted, empty for a frame computed on this device', () => {
    const lines = samplesToCsv([
      { ...base, link: 'bw=2mbit/10mbit,delay=40ms' },
      { ...base, path: 'device', codec: null, transport: null, link: null },
    ]).split('\r\n');
    expect(lines[1]).toMatch(/,gateway,websocket,"bw=2mbit\/10mbit,delay=40ms"$/);
    expect(lines[2]).toMatch(/,device,,$/);
  });
});

describe('samplesToJson', () => {
  it('holds the samples with the CSV columns and the metadata', () => {
    const parsed = JSON.parse(samplesToJson([base], { exportedAt: '2026-01-01T00:00:00.000Z', discarded: 0 }, [{ at: 1, rttMs: 1.23456 }]));
    expect(parsed).toMatchObject({ format: 'sightline-samples', protocol: PROTOCOL_VERSION, count: 1, discarded: 0 });
    expect(Object.keys(parsed.samples[0])).toEqual([...CSV_COLUMNS]);
    expect(parsed.pings).toEqual([{ rttMs: 1.235 }]);
  });

  it('says what each link was, and which link each ping crossed', () => {
    const lte = { spec: 'lte', label: 'LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated', emulated: true };
    const parsed = JSON.parse(
      samplesToJson([base], { exportedAt: '', discarded: 0, links: [lte] }, [
        { at: 1, rttMs: 41.5, link: 'lte' },
        { at: 2, rttMs: 0.5 },
      ]),
    );
    expect(parsed.samples[0].link).toBe('lte');
    expect(parsed.links).toEqual([lte]);
    expect(parsed.pings).toEqual([{ rttMs: 41.5, link: 'lte' }, { rttMs: 0.5 }]);
  });
});

describe('exportFilename', () => {
  it('is sightline-samples-<timestamp>.<ext> without characters file systems reject', () => {
    const date = new Date('2026-11-22T14:30:05.123Z');
    expect(exportFilename('csv', date)).toBe('sightline-samples-2026-11-22T14-30-05-123Z.csv');
    expect(exportFilename('json', date)).toMatch(/^sightline-samples-[0-9TZ-]+\.json$/);
    expect(exportFilename('csv', date, 'detections')).toBe('sightline-detections-2026-11-22T14-30-05-123Z.csv');
  });
});

const row: DetectionRow = {
  frameId: 1,
  path: 'gateway',
  capturedAt: 1_763_821_800_100.25,
  trackId: 3,
  label: 'dog',
  classId: 18,
  score: 0.91,
  x1: 10.5,
  y1: 20,
  x2: 110,
  y2: 220.25,
  width: 400,
  height: 300,
};

describe('detections export', () => {
  it('is one CSV row per detection with its track id, empty while no track holds it', () => {
    const lines = detectionsToCsv([row, { ...row, trackId: null, label: 'cat', classId: 17 }]).split('\r\n');
    expect(lines[0]).toBe('frameId,path,capturedAt,trackId,label,classId,score,x1,y1,x2,y2,width,height');
    expect(lines[1]).toBe('1,gateway,1763821800100.25,3,dog,18,0.91,10.5,20,110,220.25,400,300');
    expect(lines[2]).toBe('1,gateway,1763821800100.25,,cat,17,0.91,10.5,20,110,220.25,400,300');
    expect(lines).toHaveLength(4);
  });

  it('goes into the JSON as `detections`, beside the samples (whose fields stay the CSV columns)', () => {
    const parsed = JSON.parse(samplesToJson([base], { exportedAt: '2026-01-01T00:00:00.000Z', discarded: 0 }, [], [row]));
    expect(Object.keys(parsed.samples[0])).toEqual([...CSV_COLUMNS]);
    expect(parsed.detections).toEqual([row]);
    expect(Object.keys(parsed.detections[0])).toEqual([...DETECTION_COLUMNS]);
    expect(JSON.parse(samplesToJson([], { exportedAt: '', discarded: 0 })).detections).toEqual([]);
  });
});
