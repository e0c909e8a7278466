import { describe, expect, it } from 'vitest';
import { encode as msgpackEncode } from '@msgpack/msgpack';
import { codecOf, decodeClientMessage, decodeServerMessage, encodeMessage, wireSize } from '../../src/codec.ts';
import type { ClientMessage, Codec, ServerMessage } from '../../src/protocol.ts';
import { ProtocolError } from '../../src/validation.ts';

const image = new Uint8Array(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));

const clientMessages: ClientMessage[] = [
  { type: 'frame', id: 7, ts: 1234.5, image },
  { type: 'frame', id: 8, ts: 1, image, model: 'blazeface-back-256', threshold: 0.3 },
  { type: 'ping', id: 3, ts: 99.25 },
];

const serverMessages: ServerMessage[] = [
  {
    type: 'hello',
    protocol: 1,
    defaultModel: 'm',
    models: ['m', 'n'],
    limits: { maxMessageBytes: 1, maxPixels: 2, maxInFlight: 1, queueLength: 1 },
  },
  {
    type: 'detections',
    id: 7,
    ts: 1234.5,
    model: 'm',
    width: 640,
    height: 480,
    detections: [{ label: 'dog', classId: 18, score: 0.91, box: [10.5, 20, 300, 470.25] }],
    timings: { queueMs: 0.1, decodeMs: 2, preprocessMs: 0.5, inferenceMs: 20, postprocessMs: 0.4, serverMs: 23.2 },
  },
  { type: 'pong', id: 3, ts: 99.25, serverTs: 1_700_000_000_000 },
  { type: 'dropped', id: 9, reason: 'superseded' },
  { type: 'error', id: 4, code: 'bad_image', message: 'not an image' },
  { type: 'error', code: 'bad_message', message: 'not valid JSON' },
];

describe.each<Codec>(['json', 'msgpack'])('%s codec', (codec) => {
  it.each(clientMessages.map((m) => [m.type, m] as const))('round-trips a client %s', (_type, message) => {
    const wire = encodeMessage(message, codec);
    expect(codecOf(wire)).toBe(codec);
    expect(decodeClientMessage(wire)).toEqual(message);
  });

  it.each(serverMessages.map((m) => [m.type, m] as const))('round-trips a server %s', (_type, message) => {
    expect(decodeServerMessage(encodeMessage(message, codec))).toEqual(message);
  });
});

describe('wire format', () => {
  it('carries the image as Base64 text in JSON and as raw bytes in MessagePack', () => {
    const frame: ClientMessage = { type: 'frame', id: 1, ts: 2, image };
    const json = encodeMessage(frame, 'json');
    expect(JSON.parse(json).image).toBe(Buffer.from(image).toString('base64'));
    const packed = encodeMessage(frame, 'msgpack');
    // bin 16 header: 0xc5 + 2-byte length, then the bytes untouched
    const header = [0xc5, image.length >> 8, image.length & 0xff];
    const at = Buffer.from(packed).indexOf(Buffer.from([...header, ...image.subarray(0, 8)]));
    expect(at).toBeGreaterThan(0);
  });

  it('makes JSON about 4/3 the size of MessagePack for a large image', () => {
    const big = new Uint8Array(30_000).fill(200);
    const frame: ClientMessage = { type: 'frame', id: 1, ts: 2, image: big };
    const ratio = wireSize(encodeMessage(frame, 'json')) / wireSize(encodeMessage(frame, 'msgpack'));
    expect(ratio).toBeGreaterThan(1.3);
    expect(ratio).toBeLessThan(1.36);
  });

  it('omits absent optional fields from MessagePack instead of writing nil', () => {
    const wire = encodeMessage({ type: 'ping', id: 1, ts: 2 }, 'msgpack');
    expect(wire).toEqual(msgpackEncode({ type: 'ping', id: 1, ts: 2 }));
  });
});

describe('rejection', () => {
  const cases: Array<[string, string | Uint8Array, RegExp, number?]> = [
    ['truncated JSON', '{"type":"ping","id":1', /not valid JSON/],
    ['a JSON array', '[1,2,3]', /expected object|Invalid input/i],
    ['an unknown type', JSON.stringify({ type: 'hello', id: 1, ts: 1 }), /type/, 1],
    ['a negative id', JSON.stringify({ type: 'ping', id: -1, ts: 1 }), /id/],
    ['a fractional id', JSON.stringify({ type: 'ping', id: 1.5, ts: 1 }), /id/],
    ['a string ts', JSON.stringify({ type: 'ping', id: 1, ts: 'now' }), /ts/, 1],
    ['invalid Base64', JSON.stringify({ type: 'frame', id: 2, ts: 1, image: 'abc$' }), /Base64/, 2],
    ['unpadded Base64', JSON.stringify({ type: 'frame', id: 2, ts: 1, image: 'abc' }), /Base64/, 2],
    ['a threshold above 1', JSON.stringify({ type: 'frame', id: 2, ts: 1, image: 'AAAA', threshold: 2 }), /threshold/, 2],
    ['an unknown field', JSON.stringify({ type: 'ping', id: 5, ts: 1, extra: true }), /extra|Unrecognized/i, 5],
    ['truncated MessagePack', msgpackEncode({ type: 'ping', id: 1, ts: 1 }).subarray(0, 5), /MessagePack/],
    ['a Base64 string in MessagePack', msgpackEncode({ type: 'frame', id: 6, ts: 1, image: 'AAAA' }), /binary/, 6],
    ['a MessagePack number', msgpackEncode(42), /expected object|Invalid input/i],
  ];

  it.each(cases)('rejects %s as bad_message', (_name, wire, reason, id) => {
    let caught: unknown;
    try {
      decodeClientMessage(wire);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProtocolError);
    const error = caught as ProtocolError;
    expect(error.code).toBe('bad_message');
    expect(error.message).toMatch(reason);
    expect(error.id).toBe(id);
  });

  it('rejects a server message with an unknown error code', () => {
    expect(() => decodeServerMessage(JSON.stringify({ type: 'error', code: 'nope', message: 'x' }))).toThrow(ProtocolError);
  });
});
