import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@sightline/shared/protocol';
import { closeCodeOf, closePayload, rawFrame, readServerFrames, upgradeRequest } from '../../../fuzz/raw-websocket.ts';

describe('raw WebSocket frames', () => {
  it('builds the header bits as told', () => {
    const frame = rawFrame(new Uint8Array([1, 2, 3]), { opcode: 0x2, rsv: 4, fin: false, masked: false });
    expect([...frame]).toEqual([0x40 | 0x02, 3, 1, 2, 3]);
  });

  it('masks the payload and picks the length encoding by size', () => {
    const masked = rawFrame(new Uint8Array([0, 0, 0, 0]), { opcode: 0x1 });
    expect(masked[1]).toBe(0x80 | 4);
    expect([...masked.subarray(6)]).toEqual([...masked.subarray(2, 6)]); // zeros XOR key = key
    expect(rawFrame(new Uint8Array(126), { opcode: 2, masked: false }).subarray(1, 4)).toEqual(new Uint8Array([126, 0, 126]));
    const big = rawFrame(new Uint8Array(0), { opcode: 2, masked: false, declaredLength: 2n ** 40n });
    expect(big[1]).toBe(127);
    expect(big.length).toBe(10);
  });

  it('reads server frames and their close code, leaving a partial frame', () => {
    const close = rawFrame(closePayload(1002, 'bye'), { opcode: 0x8, masked: false });
    const text = rawFrame(new TextEncoder().encode('{"type":"hello"}'), { opcode: 0x1, masked: false });
    const stream = new Uint8Array([...text, ...close, 0x81]);
    const { frames, rest } = readServerFrames(stream);
    expect(frames.map((f) => f.opcode)).toEqual([1, 8]);
    expect(closeCodeOf(frames[1]!.payload)).toBe(1002);
    expect(closeCodeOf(new Uint8Array(0))).toBe(1005);
    expect([...rest]).toEqual([0x81]);
  });

  it('writes an upgrade request with a fresh key', () => {
    const request = upgradeRequest('127.0.0.1:8080');
    expect(request.startsWith(`GET /ws?protocol=${PROTOCOL_VERSION} HTTP/1.1\r\n`)).toBe(true);
    expect(request).toMatch(/Sec-WebSocket-Key: [A-Za-z0-9+/]{22}==\r\n/);
    expect(request.endsWith('\r\n\r\n')).toBe(true);
  });
});
