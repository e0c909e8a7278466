/**
 * Seeded malformed (and oddly well-formed) inputs for the gateway, over both WebSocket codecs, HTTP and raw
 * TCP. Case `index` of seed `seed` is always the same bytes with the same expectation, so a failure is
 * replayed by its two numbers. Every case states what a correct gateway answers (fuzz-case.ts).
 *
 * Cases are made one at a time, on demand: some are the size of the message limit (10 MiB by default).
 */
import { encode as msgpackEncode } from '@msgpack/msgpack';
import { IMAGE_CONTENT_TYPES, JSON_CONTENT_TYPE, MSGPACK_CONTENT_TYPE, type Codec, type ErrorCode } from '@sightline/shared/protocol';
import { jpegBombHeader, pngBombHeader, webpBombHeader } from '@sightline/shared/fixtures';
import type { Corpus, NamedImage } from './corpus.ts';
import {
  CATEGORIES,
  LOAD_SHEDDING_HTTP,
  LOAD_SHEDDING_WS,
  httpOutcome,
  reply,
  type Category,
  type Expectation,
  type FuzzCase,
  type FuzzInput,
} from './fuzz-case.ts';
import { caseSeed, createRng, type Rng } from './prng.ts';
import { closePayload, rawFrame, upgradeRequest } from './raw-websocket.ts';
import { encodeValue, httpBody, httpInput, jsonText, textBytes, wsInput } from './wire-input.ts';

/** What the generator must know of the gateway under test: from its `hello` and GET /api/models. */
export interface GatewayFacts {
  maxMessageBytes: number;
  maxPixels: number;
  models: readonly string[];
  /** host:port as clients reach it: raw HTTP requests name it, so a gateway checking Host judges the rest. */
  host: string;
}

interface Context {
  rng: Rng;
  /** The id this case's message carries when it has a readable one. */
  id: number;
  facts: GatewayFacts;
  corpus: Corpus;
}

type Draft = Omit<FuzzCase, 'index' | 'category'>;

/** Share of each category in a run, in percent; cheap cases dominate, heavy ones (10 MiB, inference) are rarer. */
export const CATEGORY_WEIGHTS: Readonly<Record<Category, number>> = {
  'random-bytes': 8,
  'truncated-msgpack': 6,
  'garbled-msgpack': 6,
  'wrong-shape': 14,
  'unknown-keys': 7,
  'broken-json': 6,
  'broken-base64': 5,
  'deep-nesting': 4,
  'not-an-image': 7,
  'truncated-jpeg': 5,
  'image-bomb': 4,
  'odd-image': 8,
  oversize: 1.5,
  'invalid-utf8': 4,
  'gzip-bomb': 1.5,
  'wrong-content-type': 4,
  'tcp-garbage': 4,
  'bad-ws-framing': 5,
  'bad-video': 5,
  'bad-rules': 4,
};

const STAND_IN_IMAGE = new Uint8Array([0xff, 0xd8, 0xff, 0xe0]);
const TS = 1520.5;
const CODECS: readonly Codec[] = ['json', 'msgpack'];

const frame = (ctx: Context, image: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'frame',
  id: ctx.id,
  ts: TS,
  image,
  ...extra,
});
const detectBody = (ctx: Context, image: unknown, extra: Record<string, unknown> = {}) => ({ image, id: ctx.id, ts: TS, ...extra });
const refused = (code: ErrorCode, id?: number): Expectation => ({ accept: [reply.error(code)], ...(id === undefined ? {} : { id }) });
const httpRefused = (code: ErrorCode, id?: number): Expectation => ({ accept: [httpOutcome(code)], ...(id === undefined ? {} : { id }) });
const detected = (id?: number, size?: { width: number; height: number }): Expectation => ({
  accept: [reply.detections, ...LOAD_SHEDDING_WS],
  ...(id === undefined ? {} : { id }),
  ...(size ? { size } : {}),
});
const httpDetected = (size?: { width: number; height: number }): Expectation => ({
  accept: [httpOutcome('detections'), ...LOAD_SHEDDING_HTTP],
  ...(size ? { size } : {}),
});

/** A WebSocket message of `value` in a random codec, or the same fields as a POST /api/detect body. */
function wsOrHttp(ctx: Context, httpShare: number): { codec: Codec; http: boolean } {
  return { codec: ctx.rng.pick(CODECS), http: ctx.rng.chance(httpShare) };
}

/** Whether the protocol can read an id from `value`: an object whose `id` is an integer 0..2^53-1. */
export function readableId(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : undefined;
}

function randomText(rng: Rng, length: number): string {
  const pool = ['a', 'Z', '0', '9', ' ', '{', '}', '[', ']', '"', ':', ',', '\\', '\n', 'é', 'ß', '漢', '字', '🙂', '\u0000', '\u200b'];
  let text = '';
  while (text.length < length) text += rng.pick(pool);
  return text;
}

function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function letters(rng: Rng, length: number): string {
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const out = new Array<string>(length);
  for (let i = 0; i < length; i++) out[i] = chars[Math.floor(rng.next() * chars.length)]!;
  return out.join('');
}

/** An object with `key` as an own, enumerable property, even `__proto__`. */
function withKey(base: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const copy = { ...base };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

// ---------------------------------------------------------------------------------------------------------
// Categories

function randomBytes(ctx: Context): Draft {
  const { rng } = ctx;
  const where = rng.pick(['ws-binary', 'ws-text', 'ws-text', 'http'] as const);
  if (where === 'ws-binary') {
    const data = rng.bytes(rng.int(0, 4096));
    return {
      channel: 'ws-binary',
      name: `${data.length} random bytes, binary`,
      input: wsInput('msgpack', data),
      expect: refused('bad_message'),
    };
  }
  if (where === 'ws-text') {
    // Random bytes are rarely UTF-8: those must cost the connection (RFC 6455: 1007); valid text is a bad message.
    const data = rng.chance(0.5) ? rng.bytes(rng.int(1, 2048)) : new TextEncoder().encode(randomText(rng, rng.int(0, 2048)));
    const utf8 = isUtf8(data);
    return {
      channel: 'ws-text',
      name: `${data.length} random ${utf8 ? 'UTF-8 text' : 'bytes'}, text frame`,
      input: wsInput('json', data),
      expect: utf8 ? refused('bad_message') : { accept: [reply.close(1007)] },
    };
  }
  const contentType = rng.pick([...IMAGE_CONTENT_TYPES, 'application/octet-stream', JSON_CONTENT_TYPE, MSGPACK_CONTENT_TYPE]);
  const body = rng.bytes(rng.int(0, 4096));
  // No accidental magic bytes: these must not be images.
  if (body.length > 0 && [0xff, 0x89, 0x52].includes(body[0]!)) body[0] = 0x00;
  const isImageType = contentType.startsWith('image/') || contentType === 'application/octet-stream';
  const expect = body.length === 0 || !isImageType ? httpRefused('bad_message') : httpRefused('bad_image');
  return { channel: 'http', name: `${body.length} random bytes as ${contentType}`, input: httpInput(body, contentType), expect };
}

function truncatedMsgpack(ctx: Context): Draft {
  const { rng } = ctx;
  const http = rng.chance(0.25);
  const full = encodeValue(http ? detectBody(ctx, ctx.corpus.small) : frame(ctx, ctx.corpus.small), 'msgpack');
  const cut = rng.int(0, full.length - 1);
  const data = full.subarray(0, cut);
  const name = `MessagePack frame cut at ${cut} of ${full.length} bytes`;
  if (http) return { channel: 'http', name, input: httpInput(data, MSGPACK_CONTENT_TYPE), expect: httpRefused('bad_message') };
  return { channel: 'ws-binary', name, input: wsInput('msgpack', data), expect: refused('bad_message') };
}

function garbledMsgpack(ctx: Context): Draft {
  const { rng } = ctx;
  const data = encodeValue(frame(ctx, STAND_IN_IMAGE), 'msgpack').slice();
  const flips = rng.int(1, 4);
  const at: number[] = [];
  for (let i = 0; i < flips; i++) {
    const p = rng.int(0, data.length - 1);
    data[p] = data[p]! ^ rng.int(1, 255);
    at.push(p);
  }
  // Whatever the flips hit (structure, a key, the id, the 4 image bytes), the answer is a refusal with a reason.
  return {
    channel: 'ws-binary',
    name: `MessagePack frame with bytes ${at.join(',')} flipped`,
    input: wsInput('msgpack', data),
    expect: { accept: [reply.error('bad_message'), reply.error('bad_image')] },
  };
}

interface Mutation {
  name: string;
  apply: (value: Record<string, unknown>, ctx: Context) => unknown;
  /** The true answers; `bad_message` when absent. */
  codes?: ErrorCode[];
  /** Only in this codec (NaN travels in MessagePack only; JSON cannot carry bytes). */
  codec?: Codec;
  /** Not for HTTP bodies (which have no `type`). */
  wsOnly?: boolean;
}

const set =
  (key: string, v: unknown) =>
  (value: Record<string, unknown>): unknown => ({ ...value, [key]: v });
const without =
  (key: string) =>
  (value: Record<string, unknown>): unknown => {
    const copy = { ...value };
    delete copy[key];
    return copy;
  };

const MUTATIONS: readonly Mutation[] = [
  ...(['7', -1, 1.5, null, true, 2 ** 60, [1], {}] as const).map((v) => ({ name: `id is ${JSON.stringify(v)}`, apply: set('id', v) })),
  { name: 'id missing', apply: without('id'), wsOnly: true },
  ...(['now', null, {}, [], true] as const).map((v) => ({ name: `ts is ${JSON.stringify(v)}`, apply: set('ts', v) })),
  { name: 'ts is NaN', apply: set('ts', Number.NaN), codec: 'msgpack' },
  { name: 'ts is Infinity', apply: set('ts', Number.POSITIVE_INFINITY), codec: 'msgpack' },
  { name: 'ts missing', apply: without('ts'), wsOnly: true },
  ...([42, true, null, [1, 2, 3], {}] as const).map((v) => ({ name: `image is ${JSON.stringify(v)}`, apply: set('image', v) })),
  { name: 'image missing', apply: without('image') },
  { name: 'image is a Base64 string in MessagePack', apply: set('image', '/9j/4A=='), codec: 'msgpack' },
  // Valid Base64 of nothing: refused as no image, or as a malformed message.
  { name: 'image is an empty string', apply: set('image', ''), codec: 'json', codes: ['bad_image', 'bad_message'] },
  { name: 'image is an empty bin', apply: set('image', new Uint8Array(0)), codec: 'msgpack', codes: ['bad_image', 'bad_message'] },
  ...(['Frame', 'frames', 42, null, 'pong', 'detections', 'hello', 'error'] as const).map((v) => ({
    name: `type is ${JSON.stringify(v)}`,
    apply: set('type', v),
    wsOnly: true,
  })),
  { name: 'type missing', apply: without('type'), wsOnly: true },
  ...(['', 42, null, 'x'.repeat(101)] as const).map((v) => ({
    name: `model is ${typeof v === 'string' && v.length > 20 ? `${v.length} chars` : JSON.stringify(v)}`,
    apply: set('model', v),
  })),
  { name: 'model names no model', apply: set('model', 'no-such-model'), codes: ['unknown_model'] },
  ...([-0.1, 1.5, '0.5', null] as const).map((v) => ({ name: `threshold is ${JSON.stringify(v)}`, apply: set('threshold', v) })),
  { name: 'threshold is NaN', apply: set('threshold', Number.NaN), codec: 'msgpack' },
  { name: 'a ping with an image', apply: (v) => ({ ...v, type: 'ping' }), wsOnly: true },
  { name: 'a ping with id -1', apply: () => ({ type: 'ping', id: -1, ts: TS }), wsOnly: true },
  { name: 'a ping without ts', apply: (_v, ctx) => ({ type: 'ping', id: ctx.id }), wsOnly: true },
  ...([[], 42, 'frame', null, true, {}, 0] as const).map((v) => ({ name: `the message is ${JSON.stringify(v)}`, apply: () => v })),
  { name: 'the frame inside an array', apply: (v) => [v] },
];

function wrongShape(ctx: Context): Draft {
  const { rng } = ctx;
  const { codec, http } = wsOrHttp(ctx, 0.3);
  if (http && rng.chance(0.4)) {
    // A raw image with a bad query string.
    const query = rng.pick([
      '?threshold=abc',
      '?threshold=2',
      '?id=-1',
      '?id=1.5',
      '?ts=abc',
      '?foo=bar',
      '?model=',
      '?model=no-such-model',
    ]);
    const code: ErrorCode = query === '?model=no-such-model' ? 'unknown_model' : 'bad_message';
    return {
      channel: 'http',
      name: `JPEG with query ${query}`,
      input: httpInput(ctx.corpus.small, 'image/jpeg', { query }),
      expect: httpRefused(code),
    };
  }
  const candidates = MUTATIONS.filter((m) => (m.codec === undefined || m.codec === codec) && !(http && m.wsOnly));
  const mutation = rng.pick(candidates);
  const value = mutation.apply(http ? detectBody(ctx, ctx.corpus.small) : frame(ctx, ctx.corpus.small), ctx);
  const codes = mutation.codes ?? ['bad_message'];
  const id = readableId(value);
  const name = `${mutation.name} (${codec})`;
  const withId = id === undefined ? {} : { id };
  if (http) return { channel: 'http', name, input: httpBody(value, codec), expect: { accept: codes.map(httpOutcome), ...withId } };
  return {
    channel: codec === 'json' ? 'ws-text' : 'ws-binary',
    name,
    input: wsInput(codec, encodeValue(value, codec)),
    expect: { accept: codes.map(reply.error), ...withId },
  };
}

function unknownKeys(ctx: Context): Draft {
  const { rng } = ctx;
  const { codec, http } = wsOrHttp(ctx, 0.3);
  let value: Record<string, unknown> = http ? detectBody(ctx, ctx.corpus.small) : frame(ctx, ctx.corpus.small);
  let name: string;
  let idReadable = true;
  if (rng.chance(0.2)) {
    // The shape of a client bug or an attack: a key of ~190 kB. The refusal must not quote it back.
    const key = letters(rng, rng.int(180_000, 200_000));
    value = withKey(value, key, 1);
    name = `an unknown key of ${key.length} chars`;
  } else {
    const keys: string[] = [];
    for (let i = rng.int(1, 3); i > 0; i--) {
      const key = rng.pick(['treshold', 'Type', 'ID', 'extra', '', '__proto__', 'constructor', 'toString', letters(rng, rng.int(1, 24))]);
      keys.push(key);
      value = withKey(value, key, rng.pick([1, 'x', null, true, [], {}]));
    }
    // MessagePack decoders refuse a `__proto__` key outright: a bad message without a readable id.
    if (codec === 'msgpack' && keys.includes('__proto__')) idReadable = false;
    name = `unknown key(s) ${keys.map((k) => JSON.stringify(k)).join(', ')}`;
  }
  name += ` (${codec})`;
  const id = idReadable ? ctx.id : undefined;
  if (http) return { channel: 'http', name, input: httpBody(value, codec), expect: httpRefused('bad_message', id) };
  return {
    channel: codec === 'json' ? 'ws-text' : 'ws-binary',
    name,
    input: wsInput(codec, encodeValue(value, codec)),
    expect: refused('bad_message', id),
  };
}

const JSON_BREAKAGES: ReadonlyArray<[string, (text: string, rng: Rng) => string]> = [
  ['cut short', (t, rng) => t.slice(0, rng.int(1, t.length - 1))],
  ['without its closing brace', (t) => t.slice(0, -1)],
  ['with a trailing comma', (t) => `${t.slice(0, -1)},}`],
  ['in single quotes', (t) => t.replaceAll('"', "'")],
  ['with ts NaN', (t) => t.replace(`"ts":${TS}`, '"ts":NaN')],
  ['with a comment', (t) => `/* frame */${t}`],
  ['twice in a row', (t) => t + t],
  ['with unquoted keys', (t) => t.replace('"type"', 'type').replace('"id"', 'id')],
  ['empty', () => ''],
  ['only whitespace', () => ' \n\t '],
  ['followed by garbage', (t) => `${t}xyz`],
  ['with a hex id', (t, rng) => t.replace(/"id":\d+/, `"id":0x${rng.int(1, 255).toString(16)}`)],
];

function brokenJson(ctx: Context): Draft {
  const { rng } = ctx;
  const http = rng.chance(0.3);
  const value = http ? detectBody(ctx, STAND_IN_IMAGE) : frame(ctx, STAND_IN_IMAGE);
  if (rng.chance(1 / (JSON_BREAKAGES.length + 1))) {
    // RFC 8259 lets a parser ignore a leading byte-order mark: then the message is read (and its 4-byte
    // stand-in image refused); refusing the mark is right too.
    const text = `\ufeff${jsonText(value)}`;
    const name = 'JSON after a byte-order mark';
    if (http)
      return {
        channel: 'http',
        name,
        input: httpInput(textBytes(text), JSON_CONTENT_TYPE),
        expect: { accept: [httpOutcome('bad_message'), httpOutcome('bad_image')] },
      };
    return {
      channel: 'ws-text',
      name,
      input: wsInput('json', textBytes(text)),
      expect: { accept: [reply.error('bad_message'), reply.error('bad_image')] },
    };
  }
  const [how, breakIt] = rng.pick(JSON_BREAKAGES);
  const text = breakIt(jsonText(value), rng);
  const name = `JSON ${how}`;
  if (http) return { channel: 'http', name, input: httpInput(textBytes(text), JSON_CONTENT_TYPE), expect: httpRefused('bad_message') };
  return { channel: 'ws-text', name, input: wsInput('json', textBytes(text)), expect: refused('bad_message') };
}

function brokenBase64(ctx: Context): Draft {
  const { rng } = ctx;
  const valid = Buffer.from(ctx.corpus.small).toString('base64');
  const unpadded = Buffer.from(ctx.corpus.small.subarray(0, ctx.corpus.small.length - (ctx.corpus.small.length % 3 === 0 ? 1 : 0)))
    .toString('base64')
    .replace(/=+$/, '');
  const at = rng.int(0, valid.length - 1);
  const [how, image] = rng.pick<[string, string]>([
    ['not Base64 at all', 'not base64!'],
    ['only padding', '===='],
    ['one character short', valid.slice(0, -1)],
    ['with MIME line breaks', valid.replace(/(.{76})/g, '$1\n')],
    ['with a URL-safe character', `${valid.slice(0, at)}-${valid.slice(at + 1)}`],
    ['without its padding', unpadded],
    ['as a data: URL', `data:image/jpeg;base64,${valid}`],
    ['with spaces', valid.replace(/(.{8})/g, '$1 ')],
    ['in Latin-1 characters', 'ÿØÿà'],
  ]);
  const http = rng.chance(0.3);
  const value = http ? detectBody(ctx, image) : frame(ctx, image);
  const name = `image ${how}`;
  if (http) return { channel: 'http', name, input: httpBody(value, 'json'), expect: httpRefused('bad_message', ctx.id) };
  return { channel: 'ws-text', name, input: wsInput('json', encodeValue(value, 'json')), expect: refused('bad_message', ctx.id) };
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function repeatBytes(unit: readonly number[], times: number): Uint8Array {
  const out = new Uint8Array(unit.length * times);
  for (let i = 0; i < times; i++) out.set(unit, i * unit.length);
  return out;
}

function deepNesting(ctx: Context): Draft {
  const { rng } = ctx;
  const depth = rng.pick([1_000, 10_000, 10_000, 10_000, 100_000]);
  const codec = rng.pick(CODECS);
  const shape = rng.pick(['arrays', 'maps', 'image'] as const);
  const http = rng.chance(0.25) && shape !== 'image';
  let data: Uint8Array;
  if (codec === 'json') {
    const nested = shape === 'maps' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
    data = textBytes(shape === 'image' ? `{"type":"frame","id":${ctx.id},"ts":${TS},"image":${nested}}` : nested);
  } else {
    const nested =
      shape === 'maps'
        ? concat([repeatBytes([0x81, 0xa1, 0x61], depth), new Uint8Array([0xc0])])
        : concat([repeatBytes([0x91], depth), new Uint8Array([0xc0])]);
    // A map of four: type, id, ts, then image holding the nesting.
    data =
      shape === 'image'
        ? concat([
            new Uint8Array([0x84]),
            msgpackEncode('type'),
            msgpackEncode('frame'),
            msgpackEncode('id'),
            msgpackEncode(ctx.id),
            msgpackEncode('ts'),
            msgpackEncode(TS),
            msgpackEncode('image'),
            nested,
          ])
        : nested;
  }
  const name = `${depth.toLocaleString('en-US')} levels of ${shape === 'maps' ? 'maps' : 'arrays'}${shape === 'image' ? ' as the image' : ''} (${codec})`;
  const id = shape === 'image' ? ctx.id : undefined;
  if (http)
    return {
      channel: 'http',
      name,
      input: httpInput(data, codec === 'json' ? JSON_CONTENT_TYPE : MSGPACK_CONTENT_TYPE),
      expect: httpRefused('bad_message'),
    };
  return { channel: codec === 'json' ? 'ws-text' : 'ws-binary', name, input: wsInput(codec, data), expect: refused('bad_message', id) };
}

/** An image (or not) sent as a frame over the WebSocket in a random codec, or as a raw HTTP body. */
function imageCase(
  ctx: Context,
  name: string,
  image: Uint8Array,
  contentType: string,
  ws: Expectation,
  http: Expectation,
  model?: string,
): Draft {
  const { rng } = ctx;
  const extra = model === undefined ? {} : { model };
  if (rng.chance(0.3)) {
    const query = model === undefined ? '' : `?model=${encodeURIComponent(model)}`;
    return { channel: 'http', name, input: httpInput(image, contentType, { query }), expect: http };
  }
  const codec = rng.pick(CODECS);
  return {
    channel: codec === 'json' ? 'ws-text' : 'ws-binary',
    name: `${name} (${codec})`,
    input: wsInput(codec, encodeValue(frame(ctx, image, extra), codec)),
    expect: ws,
  };
}

function notAnImage(ctx: Context): Draft {
  const { rng } = ctx;
  const kind = rng.pick(['file', 'file', 'random', 'magic'] as const);
  if (kind === 'file') {
    const file = rng.pick(ctx.corpus.notImages);
    return imageCase(ctx, `${file.name} as the image`, file.bytes, 'image/jpeg', refused('bad_image', ctx.id), httpRefused('bad_image'));
  }
  const bytes = rng.bytes(rng.int(1, 4096));
  if (kind === 'random') {
    if ([0xff, 0x89, 0x52].includes(bytes[0]!)) bytes[0] = 0x00;
    return imageCase(
      ctx,
      `${bytes.length} random bytes as the image`,
      bytes,
      'image/png',
      refused('bad_image', ctx.id),
      httpRefused('bad_image'),
    );
  }
  // The right magic bytes, then noise: the header reader must refuse it (a noise header that happens to
  // claim a huge size is refused as too large, also true).
  const [format, magic, contentType] = rng.pick<[string, number[], string]>([
    ['JPEG', [0xff, 0xd8, 0xff], 'image/jpeg'],
    ['PNG', [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'image/png'],
    ['WebP', [0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50], 'image/webp'],
  ]);
  const data = concat([new Uint8Array(magic), bytes]);
  return imageCase(
    ctx,
    `${format} magic bytes, then ${bytes.length} random bytes`,
    data,
    contentType,
    { accept: [reply.error('bad_image'), reply.error('too_large')], id: ctx.id },
    { accept: [httpOutcome('bad_image'), httpOutcome('too_large')] },
  );
}

function truncatedJpeg(ctx: Context): Draft {
  const { photo, photoScanStart } = ctx.corpus;
  const cut = ctx.rng.int(1, photo.length - 1);
  const name = `JPEG cut at ${cut} of ${photo.length} bytes`;
  // Cut inside the headers there is nothing to decode; cut inside the scan data, a lenient decoder may show the top part.
  if (cut < photoScanStart)
    return imageCase(ctx, name, photo.subarray(0, cut), 'image/jpeg', refused('bad_image', ctx.id), httpRefused('bad_image'));
  return imageCase(
    ctx,
    name,
    photo.subarray(0, cut),
    'image/jpeg',
    { accept: [reply.error('bad_image'), reply.detections, ...LOAD_SHEDDING_WS], id: ctx.id },
    { accept: [httpOutcome('bad_image'), httpOutcome('detections'), ...LOAD_SHEDDING_HTTP] },
  );
}

function imageBomb(ctx: Context): Draft {
  const { maxPixels } = ctx.facts;
  const side = Math.ceil(Math.sqrt(maxPixels)) + 1;
  const [name, header, contentType, pixels] = ctx.rng.pick<[string, Buffer, string, number]>([
    ['PNG header claiming 100000x100000', pngBombHeader(100_000, 100_000), 'image/png', 1e10],
    [`PNG header claiming ${side}x${side}, just above the limit`, pngBombHeader(side, side), 'image/png', side * side],
    [`PNG header claiming 1x${maxPixels + 1}`, pngBombHeader(1, Math.min(maxPixels + 1, 2 ** 31 - 1)), 'image/png', maxPixels + 1],
    ['JPEG header claiming 65500x65500', jpegBombHeader(65_500, 65_500), 'image/jpeg', 65_500 ** 2],
    ['WebP header claiming 16384x16384', webpBombHeader(16_384, 16_384), 'image/webp', 16_384 ** 2],
  ]);
  // A header within the limit but without pixels is simply not a decodable image.
  const code: ErrorCode = pixels > maxPixels ? 'too_large' : 'bad_image';
  // A plain Uint8Array: the JSON codec would otherwise serialise a Buffer as {type, data}, not as Base64.
  const bytes = new Uint8Array(header.buffer, header.byteOffset, header.byteLength);
  return imageCase(ctx, name, bytes, contentType, refused(code, ctx.id), httpRefused(code));
}

function oddImage(ctx: Context): Draft {
  const { rng } = ctx;
  const image: NamedImage = rng.pick(ctx.corpus.odd);
  const model = rng.chance(0.3) ? undefined : rng.pick(ctx.facts.models);
  const size = { width: image.width, height: image.height };
  return imageCase(
    ctx,
    `${image.name}${model ? `, model ${model}` : ''}`,
    image.bytes,
    image.contentType,
    detected(ctx.id, size),
    httpDetected(size),
    model,
  );
}

function oversize(ctx: Context): Draft {
  const { rng } = ctx;
  const limit = ctx.facts.maxMessageBytes;
  const over = rng.int(1, 1024);
  const total = limit + over;
  const where = rng.pick(['ws-binary', 'ws-text', 'http'] as const);
  const name = `a message of ${total} bytes, ${over} above the limit`;
  if (where === 'http')
    return { channel: 'http', name, input: httpInput(new Uint8Array(total), 'image/jpeg'), expect: httpRefused('too_large') };
  if (where === 'ws-text') {
    const head = `{"type":"frame","id":${ctx.id},"ts":${TS},"image":"`;
    const text = head + 'A'.repeat(total - head.length - 2) + '"}';
    return { channel: 'ws-text', name, input: wsInput('json', textBytes(text)), expect: refused('too_large') };
  }
  // The MessagePack overhead around a large `bin` is fixed (a 5-byte bin32 header): measure it once at that size.
  const overhead = encodeValue(frame(ctx, new Uint8Array(70_000)), 'msgpack').length - 70_000;
  const data = encodeValue(frame(ctx, new Uint8Array(Math.max(0, total - overhead))), 'msgpack');
  return { channel: 'ws-binary', name, input: wsInput('msgpack', data), expect: refused('too_large') };
}

const INVALID_UTF8: ReadonlyArray<[string, number[]]> = [
  ['0xFF', [0xff]],
  ['0xFE', [0xfe]],
  ['an overlong slash', [0xc0, 0xaf]],
  ['a lead byte without continuation', [0xc3, 0x28]],
  ['a lone continuation byte', [0x80]],
  ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ['a code point above U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
  ['a cut 3-byte sequence', [0xe2, 0x82]],
];

function invalidUtf8(ctx: Context): Draft {
  const { rng } = ctx;
  const text = textBytes(jsonText(frame(ctx, STAND_IN_IMAGE)));
  const [how, bad] = rng.pick(INVALID_UTF8);
  const at = rng.int(0, text.length);
  const data = concat([text.subarray(0, at), new Uint8Array(bad), text.subarray(at)]);
  return {
    channel: 'ws-text',
    name: `text frame with ${how} at ${at}`,
    input: wsInput('json', data),
    expect: { accept: [reply.close(1007)] },
  };
}

function gzipBomb(ctx: Context): Draft {
  const { rng, corpus } = ctx;
  const contentType = rng.pick(['image/jpeg', JSON_CONTENT_TYPE, MSGPACK_CONTENT_TYPE]);
  const mb = Math.round(corpus.inflatedBytes / 1024 / 1024);
  const [encoding, body] = rng.pick<[string, Uint8Array]>([
    ['gzip', corpus.gzipBomb],
    ['deflate', corpus.deflateBomb],
    ['compress', corpus.gzipBomb],
  ]);
  const name =
    encoding === 'compress'
      ? `${contentType} with an unsupported Content-Encoding`
      : `${contentType}, ${encoding}: ${body.length} bytes inflating to ${mb} MiB`;
  // Inflated beyond the limit (too large), or not inflated at all (a bad message): never decoded in full.
  return {
    channel: 'http',
    name,
    input: httpInput(body, contentType, { headers: { 'content-encoding': encoding } }),
    expect: { accept: [httpOutcome('too_large'), httpOutcome('bad_message')] },
  };
}

function wrongContentType(ctx: Context): Draft {
  const { rng, corpus } = ctx;
  const jpeg = corpus.small;
  const json = encodeValue(detectBody(ctx, jpeg), 'json');
  const msgpack = encodeValue(detectBody(ctx, jpeg), 'msgpack');
  const [name, body, contentType, expect] = rng.pick<[string, Uint8Array, string | undefined, Expectation]>([
    ['JPEG as text/plain', jpeg, 'text/plain', httpRefused('bad_message')],
    ['JPEG as image/gif', jpeg, 'image/gif', httpRefused('bad_message')],
    ['JPEG as application/json', jpeg, JSON_CONTENT_TYPE, httpRefused('bad_message')],
    ['JPEG as application/msgpack', jpeg, MSGPACK_CONTENT_TYPE, httpRefused('bad_message')],
    ['JPEG without a Content-Type', jpeg, undefined, httpRefused('bad_message')],
    ['JPEG as multipart/form-data', jpeg, 'multipart/form-data; boundary=x', httpRefused('bad_message')],
    ['JPEG as a form', jpeg, 'application/x-www-form-urlencoded', httpRefused('bad_message')],
    ['JSON body as image/jpeg', json, 'image/jpeg', httpRefused('bad_image')],
    ['MessagePack body as image/png', msgpack, 'image/png', httpRefused('bad_image')],
    ['JSON body as application/msgpack', json, MSGPACK_CONTENT_TYPE, httpRefused('bad_message')],
    ['MessagePack body as application/json', msgpack, JSON_CONTENT_TYPE, httpRefused('bad_message')],
    // Parameters and case do not change the media type: these are valid requests.
    ['JPEG as image/jpeg; charset=utf-8', jpeg, 'image/jpeg; charset=utf-8', httpDetected()],
    ['JPEG as IMAGE/JPEG', jpeg, 'IMAGE/JPEG', httpDetected()],
  ]);
  return { channel: 'http', name, input: httpInput(body, contentType), expect };
}

function tcpGarbage(ctx: Context): Draft {
  const { rng } = ctx;
  const host = ctx.facts.host;
  const closes = { accept: ['tcp:http-400', 'tcp:closed'] };
  const [name, bytes, expect] = rng.pick<[string, Uint8Array, Expectation]>([
    [
      'random bytes',
      (() => {
        const b = rng.bytes(rng.int(1, 2048));
        // A first byte no HTTP request starts with (not a letter, not CR or LF).
        b[0] = rng.pick([0x00, 0x01, 0x16, 0x7f, 0x80, 0xc3, 0xff]);
        return b;
      })(),
      closes,
    ],
    [
      'a TLS ClientHello',
      concat([new Uint8Array([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]), rng.bytes(64)]),
      closes,
    ],
    ['an SSH banner', textBytes('SSH-2.0-OpenSSH_9.6\r\n'), closes],
    ['NUL bytes', new Uint8Array(rng.int(1, 512)), closes],
    ['a request line with a bad version', textBytes('GET / HTTP/9.9\r\n\r\n'), closes],
    [
      'a header of 20 kB',
      textBytes(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      { accept: ['tcp:http-431', 'tcp:closed'] },
    ],
    [
      'broken chunked encoding',
      textBytes(`POST /api/detect HTTP/1.1\r\nHost: ${host}\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n`),
      closes,
    ],
    [
      'an upgrade with a bad key',
      textBytes(
        `GET /ws HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: bad\r\n\r\n`,
      ),
      closes,
    ],
    // Versions 13 and 8 (a draft some servers still take) are WebSocket; 7 is not.
    [
      'an upgrade to version 7',
      textBytes(upgradeRequest(host).replace('Version: 13', 'Version: 7')),
      { accept: ['tcp:http-400', 'tcp:http-426', 'tcp:closed'] },
    ],
    [
      'an upgrade on another path',
      textBytes(upgradeRequest(host).replace('GET /ws?', 'GET /nope?')),
      { accept: ['tcp:http-404', 'tcp:closed'] },
    ],
  ]);
  return { channel: 'tcp', name, input: { channel: 'tcp', bytes }, expect };
}

function badWsFraming(ctx: Context): Draft {
  const { rng } = ctx;
  const hello = textBytes('{"type":"ping","id":1,"ts":1}');
  const [name, bytes, codes] = rng.pick<[string, Uint8Array, number[]]>([
    ['an unmasked client frame', rawFrame(hello, { opcode: 0x1, masked: false }), [1002]],
    ['a reserved opcode', rawFrame(hello, { opcode: rng.pick([0x3, 0x4, 0x5, 0xb, 0xf]) }), [1002]],
    ['RSV1 set without an extension', rawFrame(hello, { opcode: 0x1, rsv: 4 }), [1002]],
    ['a fragmented ping', rawFrame(textBytes('x'), { opcode: 0x9, fin: false }), [1002]],
    ['a continuation with nothing to continue', rawFrame(hello, { opcode: 0x0 }), [1002]],
    ['a ping of 200 bytes', rawFrame(new Uint8Array(200), { opcode: 0x9 }), [1002]],
    ['a close with code 999', rawFrame(closePayload(999), { opcode: 0x8 }), [1002]],
    ['a close with a 1-byte body', rawFrame(new Uint8Array([0x03]), { opcode: 0x8 }), [1002]],
    ['a length above 2^53', rawFrame(new Uint8Array(0), { opcode: 0x2, declaredLength: 2n ** 62n }), [1009, 1002]],
    ['a length above the hard ceiling', rawFrame(new Uint8Array(0), { opcode: 0x2, declaredLength: 2n ** 40n }), [1009]],
    ['a text frame of invalid UTF-8', rawFrame(new Uint8Array([0x7b, 0xff, 0x7d]), { opcode: 0x1 }), [1007]],
  ]);
  return { channel: 'tcp-ws', name, input: { channel: 'tcp-ws', bytes }, expect: { accept: codes.map(reply.close) } };
}

/**
 * Video chunks (protocol 3) that no decoder should take, on the shared connection: whichever state earlier cases
 * left its video stream in, each is answered with its error (never a crash, never silence). A delta or a keyframe
 * of random bytes may meet a decoder an earlier case opened, so it is either refused before decoding
 * (`needs_keyframe`) or by the decoder (`bad_video`); a stream the gateway has no decoder slot for sheds it.
 */
function badVideo(ctx: Context): Draft {
  const { rng, facts } = ctx;
  const side = Math.ceil(Math.sqrt(facts.maxPixels)) + 1;
  const noise = (length: number) => {
    const bytes = new Uint8Array(length);
    for (let i = 0; i < length; i++) bytes[i] = Math.floor(rng.next() * 256);
    return bytes;
  };
  const undecodable: ErrorCode[] = ['needs_keyframe', 'bad_video'];
  const [name, fields, codes] = rng.pick<[string, Record<string, unknown>, ErrorCode[]]>([
    ['a VP8 delta of noise, no keyframe before it', { codec: 'vp8', key: false, data: noise(rng.int(1, 4000)) }, undecodable],
    ['a VP8 keyframe of noise', { codec: 'vp8', key: true, width: 640, height: 480, data: noise(rng.int(16, 8000)) }, undecodable],
    ['an H.264 keyframe of noise', { codec: 'h264', key: true, width: 640, height: 480, data: noise(rng.int(16, 8000)) }, undecodable],
    ['a keyframe without its size', { codec: 'vp8', key: true, data: noise(64) }, ['bad_video', 'needs_keyframe']],
    [`a keyframe claiming ${side}x${side}`, { codec: 'vp8', key: true, width: side, height: side, data: noise(64) }, ['too_large']],
    ['an AV1 keyframe (not decoded here)', { codec: 'av1', key: true, width: 64, height: 64, data: noise(64) }, ['unsupported_codec']],
    ['an empty keyframe', { codec: 'vp9', key: true, width: 64, height: 64, data: new Uint8Array(0) }, undecodable],
    [
      'a keyframe for a model that does not exist',
      { codec: 'vp8', key: true, width: 64, height: 64, data: noise(64), model: `no-such-${letters(rng, 6)}` },
      ['unknown_model'],
    ],
  ]);
  const codec = rng.pick(CODECS);
  const message = { type: 'chunk', id: ctx.id, ts: TS, ...fields };
  return {
    channel: codec === 'json' ? 'ws-text' : 'ws-binary',
    name: `${name} (${codec})`,
    input: wsInput(codec, encodeValue(message, codec)),
    expect: { accept: [...codes.map(reply.error), ...LOAD_SHEDDING_WS], id: ctx.id },
  };
}

/** The rules API's body limit (events-service.ts): past it the PUT is `too_large` before it is parsed. */
const RULES_BODY_LIMIT = 256 * 1024;

/** A polygon of `n` points on a circle: a simple polygon, valid but for its size. */
const circle = (n: number) =>
  Array.from({ length: n }, (_, i) => [0.5 + 0.4 * Math.cos((2 * Math.PI * i) / n), 0.5 + 0.4 * Math.sin((2 * Math.PI * i) / n)]);
const line = (i: number) => ({ name: `l${i}`, from: [0.1, (i % 90) / 100 + 0.05], to: [0.9, (i % 90) / 100 + 0.05] });
/** Rules of these lines and no zone; of one zone `z` and no line. */
const onlyLines = (...lines: unknown[]) => ({ lines, zones: [] });
const onlyZone = (polygon: unknown) => ({ lines: [], zones: [{ name: 'z', polygon }] });

/**
 * A camera's rules replaced with something wrong (PUT /api/cameras/NAME/rules): every one is refused with the field
 * named, and a huge or numerous one is refused by its size or its count, bounded, before any work on its items.
 */
function badRules(ctx: Context): Draft {
  const { rng } = ctx;
  const camera = `fuzz-${rng.int(0, 9)}`;
  const bad = httpRefused('bad_message');
  const [name, value, expect, path] = rng.pick<[string, unknown, Expectation, string?]>([
    ['a line outside the picture', onlyLines({ name: 'a', from: [0, 0], to: [1.5, 1] }), bad],
    ['a line of no length', onlyLines({ name: 'a', from: [0.5, 0.5], to: [0.5, 0.5] }), bad],
    ['a point as a string', onlyLines({ name: 'a', from: ['0', 0], to: [1, 1] }), bad],
    [
      'a zone of two points',
      onlyZone([
        [0, 0],
        [1, 1],
      ]),
      bad,
    ],
    [
      'a self-crossing zone',
      onlyZone([
        [0, 0],
        [1, 1],
        [1, 0],
        [0, 1],
      ]),
      bad,
    ],
    ['a zone of 65 points', onlyZone(circle(65)), bad],
    ['a zone of 20,000 points', onlyZone(circle(20_000)), httpRefused('too_large')],
    ['33 lines', onlyLines(...Array.from({ length: 33 }, (_, i) => line(i))), bad],
    ['5,000 lines', onlyLines(...Array.from({ length: 5000 }, (_, i) => line(i))), httpRefused('too_large')],
    ['two lines of one name', onlyLines(line(1), { ...line(2), name: 'l1' }), bad],
    ['an unknown key', onlyLines({ ...line(1), colour: 'red' }), bad],
    ['only lines (no zones: none)', { lines: [line(1)] }, { accept: ['http 200'] }],
    ['a score of 2', onlyLines({ ...line(1), minScore: 2 }), bad],
    ['an unknown anchor', onlyLines({ ...line(1), anchor: 'feet' }), bad],
    ['a name of 200 characters', onlyLines({ ...line(1), name: 'n'.repeat(200) }), bad],
    ['an array', [line(1)], bad],
    ['a bad camera name', onlyLines(), bad, '/api/cameras/..%2Fetc/rules'],
    ['a camera name of 65 characters', onlyLines(), bad, `/api/cameras/${'c'.repeat(65)}/rules`],
    ['valid rules', { lines: [line(1)], zones: [{ name: 'z', polygon: circle(8) }] }, { accept: ['http 200'] }],
  ]);
  let body = textBytes(JSON.stringify(value));
  // A body cut short is not JSON: refused as such, whatever it held.
  if (rng.chance(0.1) && body.length < RULES_BODY_LIMIT) body = body.subarray(0, rng.int(1, body.length - 1));
  const truncated = body.length < textBytes(JSON.stringify(value)).length;
  return {
    channel: 'http',
    name: truncated ? `${name}, cut short` : name,
    input: {
      channel: 'http',
      method: 'PUT',
      path: path ?? `/api/cameras/${camera}/rules`,
      headers: { 'content-type': JSON_CONTENT_TYPE, accept: JSON_CONTENT_TYPE },
      body,
    },
    expect: truncated ? bad : expect,
  };
}

const GENERATORS: Readonly<Record<Category, (ctx: Context) => Draft>> = {
  'random-bytes': randomBytes,
  'truncated-msgpack': truncatedMsgpack,
  'garbled-msgpack': garbledMsgpack,
  'wrong-shape': wrongShape,
  'unknown-keys': unknownKeys,
  'broken-json': brokenJson,
  'broken-base64': brokenBase64,
  'deep-nesting': deepNesting,
  'not-an-image': notAnImage,
  'truncated-jpeg': truncatedJpeg,
  'image-bomb': imageBomb,
  'odd-image': oddImage,
  oversize,
  'invalid-utf8': invalidUtf8,
  'gzip-bomb': gzipBomb,
  'wrong-content-type': wrongContentType,
  'tcp-garbage': tcpGarbage,
  'bad-ws-framing': badWsFraming,
  'bad-video': badVideo,
  'bad-rules': badRules,
};

/** A category by weight; the first cases of a run visit every category once, so even short runs cover all. */
function pickCategory(rng: Rng, index: number, categories: readonly Category[]): Category {
  if (index < categories.length) return categories[index]!;
  const total = categories.reduce((sum, c) => sum + CATEGORY_WEIGHTS[c], 0);
  let roll = rng.next() * total;
  for (const c of categories) {
    roll -= CATEGORY_WEIGHTS[c];
    if (roll < 0) return c;
  }
  return categories[categories.length - 1]!;
}

/** The id a case's message carries: distinct per case, far from the runner's own pings and frames. */
export function caseMessageId(index: number): number {
  return 1_000 + index;
}

/** Case `index` of the run seeded `seed`. */
export function generateCase(
  seed: number,
  index: number,
  facts: GatewayFacts,
  corpus: Corpus,
  categories: readonly Category[] = CATEGORIES,
): FuzzCase {
  const rng = createRng(caseSeed(seed, index));
  const category = pickCategory(rng, index, categories);
  const draft = GENERATORS[category]({ rng, id: caseMessageId(index), facts, corpus });
  return { index, category, ...draft };
}

export type { FuzzInput };
