import { describe, expect, it } from 'vitest';
import { prepareOffer, restoreDirections } from '../../../src/webrtc/offer-sdp.ts';
import { WhipError } from '../../../src/webrtc/whip-error.ts';

const session = ['v=0', 'o=- 1 2 IN IP4 127.0.0.1', 's=-', 't=0 0', 'a=group:BUNDLE 0 1', 'a=fingerprint:sha-256 AB:CD'];
const ice = ['a=ice-ufrag:abcd', 'a=ice-pwd:abcdefghijklmnopqrstuvwx'];
// A browser's video section: VP8 with rtx, H.264 in both packetization modes, AV1, transport-cc.
const video = [
  'm=video 9 UDP/TLS/RTP/SAVPF 96 97 102 103 104 45',
  'a=mid:0',
  ...ice,
  'a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
  'a=sendonly',
  'a=rtpmap:96 VP8/90000',
  'a=rtcp-fb:96 goog-remb',
  'a=rtcp-fb:96 transport-cc',
  'a=rtcp-fb:96 ccm fir',
  'a=rtcp-fb:96 nack',
  'a=rtcp-fb:96 nack pli',
  'a=rtpmap:97 rtx/90000',
  'a=fmtp:97 apt=96',
  'a=rtpmap:102 H264/90000',
  'a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
  'a=rtpmap:103 H264/90000',
  'a=fmtp:103 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f',
  'a=rtpmap:104 rtx/90000',
  'a=fmtp:104 apt=102',
  'a=rtpmap:45 AV1/90000',
];
const data = ['m=application 9 UDP/DTLS/SCTP webrtc-datachannel', 'a=mid:1', ...ice, 'a=sctp-port:5000'];
const sdp = (...lines: string[]) => lines.join('\r\n') + '\r\n';

const refusal = (offer: string) => {
  try {
    prepareOffer(offer);
  } catch (error) {
    if (error instanceof WhipError) return { code: error.code, status: error.status, reason: error.message };
  }
  return undefined;
};

describe('prepareOffer', () => {
  it('keeps VP8 and H.264 (packetization-mode 1) in the preferred order, with NACK, without rtx or transport-cc', () => {
    const prepared = prepareOffer(sdp(...session, ...video, ...data), ['h264', 'vp8']);
    const lines = prepared.sdp.split('\r\n');
    expect(lines).toContain('m=video 9 UDP/TLS/RTP/SAVPF 102 96');
    expect(lines.filter((l) => /rtx|AV1|:103 |:104 |transport-cc/.test(l))).toEqual([]);
    expect(lines).toEqual(expect.arrayContaining(['a=rtcp-fb:96 nack', 'a=rtcp-fb:96 nack pli', 'a=rtcp-fb:96 goog-remb']));
    // The stack is shown sendrecv (so it lets our NACKs out); restoreDirections answers the sender recvonly.
    expect(lines).toContain('a=sendrecv');
    expect(lines).not.toContain('a=sendonly');
    expect(prepared.video).toEqual([
      {
        mid: '0',
        sendOnly: true,
        payloadTypes: new Map([
          [102, 'h264'],
          [96, 'vp8'],
        ]),
      },
    ]);
    expect(prepared.dataChannels).toBe(true);
    expect(lines).toContain('m=application 9 UDP/DTLS/SCTP webrtc-datachannel');
  });

  it('turns the answer of a sendonly video section back to recvonly, and leaves the other sections alone', () => {
    const { video: offered } = prepareOffer(sdp(...session, ...video, ...data));
    const answer = sdp(
      'v=0',
      'm=video 9 UDP/TLS/RTP/SAVPF 96',
      'a=mid:0',
      'a=sendrecv',
      'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
      'a=mid:1',
      'a=sendrecv',
    );
    expect(restoreDirections(answer, offered).split('\r\n')).toEqual([
      'v=0',
      'm=video 9 UDP/TLS/RTP/SAVPF 96',
      'a=mid:0',
      'a=recvonly',
      'm=application 9 UDP/DTLS/SCTP webrtc-datachannel',
      'a=mid:1',
      'a=sendrecv',
      '',
    ]);
  });

  it('takes a data channel alone', () => {
    expect(prepareOffer(sdp(...session, ...data))).toMatchObject({ video: [], dataChannels: true });
  });

  it('refuses what it cannot answer with a reason for a 400', () => {
    expect(refusal('')).toMatchObject({ code: 'bad_sdp', status: 400 });
    expect(refusal('hello')).toEqual({ code: 'bad_sdp', status: 400, reason: 'not an SDP offer: the first line must be v=0' });
    expect(refusal(sdp(...session))).toMatchObject({ code: 'bad_sdp', reason: 'the offer has no media section (m=)' });
    expect(refusal(sdp(...session, 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=mid:0', 'a=rtpmap:96 VP8/90000'))).toMatchObject({
      code: 'bad_sdp',
      reason: expect.stringContaining('no ice-ufrag'),
    });
    expect(refusal(sdp(...session, 'm=video 9 UDP/TLS/RTP/SAVPF 45', 'a=mid:0', ...ice, 'a=rtpmap:45 AV1/90000'))).toEqual({
      code: 'unsupported_media',
      status: 400,
      reason: 'no supported video codec offered (vp8, h264); offered: AV1',
    });
    expect(refusal(sdp(...session, 'm=audio 9 UDP/TLS/RTP/SAVPF 111', 'a=mid:0', ...ice))).toMatchObject({ code: 'unsupported_media' });
    expect(refusal(sdp(...session, 'not a line', ...data))).toMatchObject({
      code: 'bad_sdp',
      reason: expect.stringContaining('malformed SDP line'),
    });
  });
});
