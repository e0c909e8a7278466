import { beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus, jpegScanStart, type Corpus } from '../../../fuzz/corpus.ts';
import { CATEGORIES, type FuzzCase } from '../../../fuzz/fuzz-case.ts';
import { caseMessageId, generateCase, readableId, type GatewayFacts } from '../../../fuzz/malformed-inputs.ts';

const facts: GatewayFacts = {
  maxMessageBytes: 256 * 1024,
  maxPixels: 40_000_000,
  models: ['ssdlite-mobilenetv2-coco', 'blazeface-back-256'],
  host: '127.0.0.1:8080',
};
let corpus: Corpus;
let cases: FuzzCase[];

const isUtf8 = (bytes: Uint8Array) => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};
const sizeOf = (c: FuzzCase) =>
  c.input.channel === 'http'
    ? c.input.body.length
    : c.input.channel === 'tcp' || c.input.channel === 'tcp-ws'
      ? c.input.bytes.length
      : c.input.data.length;

beforeAll(async () => {
  corpus = await buildCorpus(facts.maxMessageBytes);
  cases = Array.from({ length: 600 }, (_, i) => generateCase(7, i, facts, corpus));
});

describe('seeded malformed inputs', () => {
  it('makes the same case from the same seed and index, alone or in a run', () => {
    const again = generateCase(7, 123, facts, corpus);
    expect(again.name).toBe(cases[123]!.name);
    expect(again.expect).toEqual(cases[123]!.expect);
    expect(sizeOf(again)).toBe(sizeOf(cases[123]!));
    expect(generateCase(8, 123, facts, corpus).name === again.name && sizeOf(generateCase(8, 123, facts, corpus)) === sizeOf(again)).toBe(
      false,
    );
  });

  it('visits every category at the start of a run, over every channel', () => {
    expect(cases.slice(0, CATEGORIES.length).map((c) => c.category)).toEqual([...CATEGORIES]);
    expect(new Set(cases.map((c) => c.channel))).toEqual(new Set(['ws-binary', 'ws-text', 'http', 'tcp', 'tcp-ws']));
    expect(new Set(cases.map((c) => c.category)).size).toBe(CATEGORIES.length);
  });

  it('states a correct answer for every case, never `internal`', () => {
    for (const c of cases) {
      expect(c.expect.accept.length, c.name).toBeGreaterThan(0);
      expect(
        c.expect.accept.some((a) => a.includes('internal')),
        c.name,
      ).toBe(false);
    }
  });

  it('expects text frames of invalid UTF-8 to close the connection with 1007, and valid text to be answered', () => {
    for (const c of cases.filter((c) => c.input.channel === 'ws-text')) {
      const data = (c.input as { data: Uint8Array }).data;
      expect(c.expect.accept.includes('close:1007'), c.name).toBe(!isUtf8(data));
    }
  });

  it('expects odd but valid images to be detected (or shed under load), never refused as bad images', () => {
    const odd = cases.filter((c) => c.category === 'odd-image');
    expect(odd.length).toBeGreaterThan(10);
    for (const c of odd) {
      expect(
        c.expect.accept.some((a) => a.endsWith('detections')),
        c.name,
      ).toBe(true);
      expect(
        c.expect.accept.some((a) => a.includes('bad_image')),
        c.name,
      ).toBe(false);
      expect(c.expect.size, c.name).toBeDefined();
    }
    expect(corpus.odd.map((i) => `${i.width}x${i.height}`)).toEqual(expect.arrayContaining(['1x600', '3x2000']));
  });

  it('makes oversize messages just above the limit', () => {
    for (const c of cases.filter((c) => c.category === 'oversize')) {
      expect(sizeOf(c), c.name).toBeGreaterThan(facts.maxMessageBytes);
      expect(sizeOf(c), c.name).toBeLessThanOrEqual(facts.maxMessageBytes + 1024);
      expect(
        c.expect.accept.every((a) => a.includes('too_large')),
        c.name,
      ).toBe(true);
    }
  });

  it('expects bombs and huge unknown keys to be refused as such', () => {
    for (const c of cases.filter((c) => c.category === 'image-bomb'))
      expect(
        c.expect.accept.every((a) => a.includes('too_large')),
        c.name,
      ).toBe(true);
    const huge = cases.filter((c) => /unknown key of \d+ chars/.test(c.name));
    expect(huge.length).toBeGreaterThan(0);
    for (const c of huge) {
      expect(sizeOf(c)).toBeGreaterThan(180_000);
      expect(
        c.expect.accept.every((a) => a.endsWith('error:bad_message')),
        c.name,
      ).toBe(true);
    }
    expect(corpus.gzipBomb.length).toBeLessThan(200_000);
    expect(corpus.inflatedBytes).toBeGreaterThan(facts.maxMessageBytes);
  });

  it('expects the id back exactly when the message had a readable one', () => {
    expect(readableId({ id: 3 })).toBe(3);
    expect(readableId({ id: -1 })).toBeUndefined();
    expect(readableId({ id: 1.5 })).toBeUndefined();
    expect(readableId({ id: 2 ** 60 })).toBeUndefined();
    expect(readableId([{ id: 3 }])).toBeUndefined();
    for (const c of cases) if (c.expect.id !== undefined) expect(c.expect.id).toBe(caseMessageId(c.index));
  });

  it('finds where a JPEG scan starts', () => {
    expect(corpus.photoScanStart).toBeGreaterThan(100);
    expect(corpus.photoScanStart).toBeLessThan(corpus.photo.length);
    expect(jpegScanStart(new Uint8Array([0xff, 0xd8, 0xff, 0xd9]))).toBe(4);
  });
});
