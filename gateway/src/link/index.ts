/**
 * The gateway's emulated links as the benchmark uses them too: the UDP relay that puts a WebRTC peer behind a
 * link, and the SDP candidate rewriting that makes both peers go through it.
 */
export { MAX_CLIENT_FLOWS, UDP_IP_HEADER_BYTES, UdpRelay, type UdpRelayOptions } from './udp-relay.ts';
export { candidateAddresses, replaceCandidates, withoutCandidates, type CandidateAddress } from './sdp-candidates.ts';
