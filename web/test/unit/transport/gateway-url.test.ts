import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION } from '@sightline/shared/protocol';
import { gatewaySocketUrl } from '../../../src/transport/gateway-url.ts';

describe('gatewaySocketUrl', () => {
  it('uses the page origin and the protocol version', () => {
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'localhost:8080' })).toBe(`ws://localhost:8080/ws?protocol=${PROTOCOL_VERSION}`);
    expect(gatewaySocketUrl({ protocol: 'https:', host: 'example.test' })).toBe(`wss://example.test/ws?protocol=${PROTOCOL_VERSION}`);
  });
});

describe('gatewaySocketUrl with a link', () => {
  it('asks for the link in the query, encoded, and for none asks nothing', () => {
    const url = new URL(gatewaySocketUrl({ protocol: 'http:', host: 'localhost:8080' }, 'bw=2mbit/10mbit,delay=40ms'));
    expect(url.searchParams.get('link')).toBe('bw=2mbit/10mbit,delay=40ms');
    expect(url.searchParams.get('protocol')).toBe(String(PROTOCOL_VERSION));
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'h' }, 'lte')).toBe(`ws://h/ws?protocol=${PROTOCOL_VERSION}&link=lte`);
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'h' }, 'none')).toBe(`ws://h/ws?protocol=${PROTOCOL_VERSION}`);
  });
});

describe('gatewaySocketUrl with a camera', () => {
  it('names a camera other than the default one, encoded, beside the link', () => {
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'h' }, 'none', 'door-1')).toBe(
      `ws://h/ws?protocol=${PROTOCOL_VERSION}&camera=door-1`,
    );
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'h' }, 'lte', 'Door.2')).toBe(
      `ws://h/ws?protocol=${PROTOCOL_VERSION}&link=lte&camera=Door.2`,
    );
    expect(gatewaySocketUrl({ protocol: 'http:', host: 'h' }, 'none', 'default')).toBe(`ws://h/ws?protocol=${PROTOCOL_VERSION}`);
  });
});
