import { describe, expect, it } from 'vitest';
import {
  iceGatheringComplete,
  parseIceServerLinks,
  whipIceServers,
  whipEndpoint,
  whipPublish,
  WhipRefused,
  type FetchLike,
} from '../../../src/webrtc/whip-signalling.ts';
import { FakeClock } from '../../support/fake-clock.ts';

describe('parseIceServerLinks', () => {
  it('reads the ICE servers of RFC 9725 Link headers, joined as fetch joins them, TURN with its credentials', () => {
    const header =
      '<stun:stun.example.net>; rel="ice-server", <turn:turn.example.net?transport=udp>; rel="ice-server"; username="u;1"; credential="p\\"w,d"; credential-type="password", <https://example.net/x>; rel="next"';
    expect(parseIceServerLinks(header)).toEqual([
      { urls: 'stun:stun.example.net' },
      { urls: 'turn:turn.example.net?transport=udp', username: 'u;1', credential: 'p"w,d' },
    ]);
    expect(parseIceServerLinks(null)).toEqual([]);
  });
});

describe('WHIP requests', () => {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fetchWith =
    (response: () => Response): FetchLike =>
    async (url, init) => {
      calls.push({ url, init });
      return response();
    };

  it('posts the offer as application/sdp and returns the answer and the absolute session location', async () => {
    const session = await whipPublish(
      'http://gateway.test/whip',
      'v=0 offer',
      fetchWith(() => new Response('v=0 answer', { status: 201, headers: { location: '/whip/abc' } })),
    );
    expect(session).toEqual({ answer: 'v=0 answer', location: 'http://gateway.test/whip/abc' });
    expect(calls.at(-1)!.init).toMatchObject({ method: 'POST', body: 'v=0 offer', headers: { 'Content-Type': 'application/sdp' } });
  });

  it("names the gateway's reason when it refuses", async () => {
    const refused = whipPublish(
      'http://gateway.test/whip',
      'bad',
      fetchWith(() => new Response(JSON.stringify({ error: 'bad_offer', reason: 'the offer has no media' }), { status: 400 })),
    );
    await expect(refused).rejects.toThrow(WhipRefused);
    await expect(refused).rejects.toThrow('WHIP 400: the offer has no media');
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'bad_offer', reason: 'the offer has no media' });
  });

  it('asks for an emulated link in the query, URL-encoded, and for none with the endpoint as it is', () => {
    expect(whipEndpoint('http://gateway.test/whip', 'lte')).toBe('http://gateway.test/whip?link=lte');
    expect(whipEndpoint('http://gateway.test/whip', 'bw=2mbit/10mbit,delay=40ms,jitter=5ms,loss=1%,queue=100ms')).toBe(
      'http://gateway.test/whip?link=bw%3D2mbit%2F10mbit%2Cdelay%3D40ms%2Cjitter%3D5ms%2Closs%3D1%25%2Cqueue%3D100ms',
    );
    expect(new URL(whipEndpoint('http://gateway.test/whip', 'delay=20ms,loss=1%')).searchParams.get('link')).toBe('delay=20ms,loss=1%');
    expect(whipEndpoint('http://gateway.test/whip', 'none')).toBe('http://gateway.test/whip');
    expect(whipEndpoint('http://gateway.test/whip')).toBe('http://gateway.test/whip');
  });

  it('names the camera of the frames in the query, the default camera by no parameter', () => {
    expect(whipEndpoint('http://gateway.test/whip', 'none', 'door-1')).toBe('http://gateway.test/whip?camera=door-1');
    expect(whipEndpoint('http://gateway.test/whip', 'lte', 'door-1')).toBe('http://gateway.test/whip?link=lte&camera=door-1');
    expect(whipEndpoint('http://gateway.test/whip', 'none', 'default')).toBe('http://gateway.test/whip');
  });

  it('asks for the ICE servers first, and does without them when the pre-flight fails', async () => {
    const ok = fetchWith(() => new Response(null, { status: 204, headers: { link: '<stun:s.example>; rel="ice-server"' } }));
    expect(await whipIceServers('http://gateway.test/whip', ok)).toEqual([{ urls: 'stun:s.example' }]);
    expect(calls.at(-1)!.init).toMatchObject({ method: 'OPTIONS' });
    const failing: FetchLike = async () => {
      throw new TypeError('network down');
    };
    expect(await whipIceServers('http://gateway.test/whip', failing)).toEqual([]);
  });
});

describe('iceGatheringComplete', () => {
  function peer(state: RTCIceGatheringState) {
    const events = new EventTarget();
    return Object.assign(events, { iceGatheringState: state });
  }

  it('waits for gathering to complete, and no longer than the timeout', async () => {
    const clock = new FakeClock();
    const gathering = peer('gathering');
    let done = false;
    void iceGatheringComplete(gathering, clock, 5000).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    gathering.iceGatheringState = 'complete';
    gathering.dispatchEvent(new Event('icegatheringstatechange'));
    await Promise.resolve();
    expect(done).toBe(true);
    expect(clock.timerCount).toBe(0);

    const stuck = peer('gathering');
    let gaveUp = false;
    void iceGatheringComplete(stuck, clock, 5000).then(() => (gaveUp = true));
    clock.advance(5000);
    await Promise.resolve();
    expect(gaveUp).toBe(true);
  });
});
