/**
 * A WHIP publisher on node-datachannel for the tests that need many peers fast (the aiortc client is the
 * independent implementation; this one is cheap): offers a data channel, optionally unordered and without
 * retransmissions, on 127.0.0.1 and its own port range, and posts the offer to a WHIP URL.
 */
import nodeDataChannel, { type DataChannel, type PeerConnection } from 'node-datachannel';

export interface NdcPeer {
  pc: PeerConnection;
  channel: DataChannel;
  offer: string;
  location?: string;
  /** Resolves when the channel is open. */
  opened: Promise<void>;
}

export async function makeOffer(label = 'frames', portRange = { min: 44000, max: 44999 }): Promise<NdcPeer> {
  const pc = new nodeDataChannel.PeerConnection('test-client', {
    iceServers: [],
    bindAddress: '127.0.0.1',
    portRangeBegin: portRange.min,
    portRangeEnd: portRange.max,
  });
  pc.onStateChange(() => {});
  const gathered = new Promise<void>((resolve) => pc.onGatheringStateChange((state) => state === 'complete' && resolve()));
  const channel = pc.createDataChannel(label, { unordered: true, maxRetransmits: 0 });
  const opened = new Promise<void>((resolve) => channel.onOpen(resolve));
  await gathered;
  return { pc, channel, offer: pc.localDescription()!.sdp, opened };
}

export async function publish(url: string, peer: NdcPeer): Promise<Response> {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/sdp' }, body: peer.offer });
  if (response.status === 201) {
    peer.location = new URL(response.headers.get('location')!, url).href;
    peer.pc.setRemoteDescription(await response.text(), 'answer');
  }
  return response;
}
