import { describe, expect, it } from 'vitest';
import { candidateAddresses, replaceCandidates, withoutCandidates } from '../../../src/link/sdp-candidates.ts';

// The shape aiortc offers and the gateway answers: BUNDLE, the same candidates in each media section.
const ANSWER = [
  'v=0',
  'o=- 1 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'm=video 40000 UDP/TLS/RTP/SAVPF 96',
  'c=IN IP4 127.0.0.1',
  'a=mid:0',
  'a=candidate:1 1 UDP 2122317823 127.0.0.1 40000 typ host',
  'a=candidate:2 1 TCP 1015023870 127.0.0.1 9 typ host tcptype active',
  'a=end-of-candidates',
  'm=application 40000 UDP/DTLS/SCTP webrtc-datachannel',
  'a=mid:1',
  'a=candidate:1 1 UDP 2122317823 127.0.0.1 40000 typ host',
  'a=end-of-candidates',
  '',
].join('\r\n');

describe('SDP candidates for the UDP relay', () => {
  it('names each candidate once, however many media sections repeat it', () => {
    expect(candidateAddresses(ANSWER)).toEqual([
      { transport: 'udp', address: '127.0.0.1', port: 40000 },
      { transport: 'tcp', address: '127.0.0.1', port: 9 },
    ]);
  });

  it('strips every candidate and end-of-candidates from an offer, and nothing else', () => {
    const stripped = withoutCandidates(ANSWER);
    expect(stripped).not.toMatch(/a=candidate|a=end-of-candidates/);
    expect(stripped).toContain('a=group:BUNDLE 0 1\r\n');
    expect(stripped).toContain('m=application 40000 UDP/DTLS/SCTP webrtc-datachannel\r\n');
    expect(stripped.endsWith('a=mid:1\r\n')).toBe(true);
    expect(candidateAddresses(stripped)).toEqual([]);
  });

  it("points the answer's UDP candidates at the relay and drops the ones that would go around it", () => {
    const rewritten = replaceCandidates(ANSWER, (c) => (c.port === 40000 ? { address: '127.0.0.1', port: 51000 } : undefined));
    expect(candidateAddresses(rewritten)).toEqual([{ transport: 'udp', address: '127.0.0.1', port: 51000 }]);
    // Foundation, component, priority and type are kept.
    expect(rewritten).toContain('a=candidate:1 1 UDP 2122317823 127.0.0.1 51000 typ host\r\n');
    expect(rewritten.match(/a=end-of-candidates/g)).toHaveLength(2);
  });

  it('drops a UDP candidate the caller has no relay for', () => {
    expect(candidateAddresses(replaceCandidates(ANSWER, () => undefined))).toEqual([]);
  });
});
