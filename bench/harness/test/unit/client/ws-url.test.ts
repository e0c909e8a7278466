import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@sightline/shared/protocol';
import { wsUrl } from '../../../src/client/ws-url.ts';

describe('wsUrl', () => {
  it("turns a gateway's base URL into its WebSocket URL, with the protocol version", () => {
    const version = `protocol=${PROTOCOL_VERSION}`;
    expect(wsUrl('http://127.0.0.1:8080')).toBe(`ws://127.0.0.1:8080/ws?${version}`);
    expect(wsUrl('https://gw.example:8443/')).toBe(`wss://gw.example:8443/ws?${version}`);
    expect(wsUrl('https://gw.example/sightline/')).toBe(`wss://gw.example/sightline/ws?${version}`);
  });

  it('takes a WebSocket URL as it is', () => {
    expect(wsUrl('ws://127.0.0.1:8080/ws?protocol=99')).toBe('ws://127.0.0.1:8080/ws?protocol=99');
    expect(wsUrl('wss://lb:443/ws')).toBe('wss://lb:443/ws');
  });
});
