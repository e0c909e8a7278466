import { describe, expect, it } from 'vitest';
import { parsePortRange, toNativeIceServers } from '../../../src/webrtc/webrtc-config.ts';
import { iceServerLinks } from '../../../src/whip/whip-http.ts';

describe('WebRTC settings', () => {
  it('reads a UDP port range and refuses anything else', () => {
    expect(parsePortRange('40000-40100')).toEqual({ min: 40000, max: 40100 });
    for (const bad of ['40000', '40100-40000', '80-90', '40000-70000', 'a-b']) expect(() => parsePortRange(bad)).toThrow(/MIN-MAX/);
  });

  it('turns RTCIceServer entries into libdatachannel servers, TURN credentials kept apart', () => {
    expect(
      toNativeIceServers([
        { urls: 'stun:stun.example.org' },
        { urls: ['turn:turn.example.org:3479?transport=tcp', 'turns:turn.example.org'], username: 'u:1', credential: 'p@ss' },
      ]),
    ).toEqual([
      { hostname: 'stun.example.org', port: 3478 },
      { hostname: 'turn.example.org', port: 3479, username: 'u:1', password: 'p@ss', relayType: 'TurnTcp' },
      { hostname: 'turn.example.org', port: 5349, username: 'u:1', password: 'p@ss', relayType: 'TurnTls' },
    ]);
    expect(() => toNativeIceServers([{ urls: 'turn:turn.example.org' }])).toThrow(/username and a credential/);
    expect(() => toNativeIceServers([{ urls: 'http://example.org' }])).toThrow(/stun:/);
  });
});

describe('iceServerLinks', () => {
  it('writes each STUN and TURN URL as an RFC 9725 ice-server Link, with TURN credentials quoted', () => {
    expect(
      iceServerLinks([
        { urls: 'stun:stun.example.net' },
        { urls: ['turn:turn.example.net?transport=udp', 'turns:turn.example.net'], username: 'user', credential: 'pa"ss' },
      ]),
    ).toEqual([
      '<stun:stun.example.net>; rel="ice-server"',
      '<turn:turn.example.net?transport=udp>; rel="ice-server"; username="user"; credential="pa\\"ss"; credential-type="password"',
      '<turns:turn.example.net>; rel="ice-server"; username="user"; credential="pa\\"ss"; credential-type="password"',
    ]);
  });
});
