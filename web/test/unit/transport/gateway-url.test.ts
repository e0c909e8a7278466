import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@sightline/shared/protocol';
import { gatewaySocketUrl } from '../../../src/transport/gateway-url.ts';

describe('gatewaySocketUrl', () => {
  it('uses the page origin and the protocol version', () => {
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'localhost:8080' })).toBe(`ws://localhost:8080/ws?protocol=${PROTOCOL_VERSION}`);
    expect(gatewaySocketUrl({ protocol: 'https:', host: 'example.test' })).toBe(`wss://example.test/ws?protocol=${PROTOCOL_VERSION}`);
  });
});
