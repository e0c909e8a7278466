import { describe, expect, it } from 'vitest';
import { gatewaySocketUrl } from '../../../src/transport/gateway-url.ts';

describe('gatewaySocketUrl', () => {
  it('uses the page origin and the protocol version', () => {
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'localhost:8080' })).toBe('ws://localhost:8080/ws?protocol=1');
    expect(gatewaySocketUrl({ protocol: 'https:', host: 'example.test' })).toBe('wss://example.test/ws?protocol=1');
  });
});
