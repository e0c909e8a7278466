import { describe, expect, it } from 'vitest';
import { wsHeaderBytes } from '../../../../client/transports/ws-connection.ts';

describe('bench WebSocket connection', () => {
  it('counts the frame header of each message size', () => {
    expect(wsHeaderBytes(125, false)).toBe(2);
    expect(wsHeaderBytes(126, true)).toBe(8);
    expect(wsHeaderBytes(65_535, false)).toBe(4);
    expect(wsHeaderBytes(65_536, true)).toBe(14);
  });
});
