import { describe, expect, it } from 'vitest';
import { FrameAssembler, type EncodedVideoFrame, type FrameDropReason } from '../../../src/rtp/frame-assembler.ts';
import { packet, vp8Frame, vp8Packets } from './rtp-builders.ts';

function assembler(codec: 'vp8' | 'h264' = 'vp8', clock = { now: 0 }, maxFrameBytes?: number) {
  const frames: EncodedVideoFrame[] = [];
  const drops: FrameDropReason[] = [];
  const nacks: number[][] = [];
  let keyframeRequests = 0;
  const a = new FrameAssembler({
    codec,
    onFrame: (f) => frames.push(f),
    onKeyframeNeeded: () => keyframeRequests++,
    onDrop: (reason) => drops.push(reason),
    onPacketsMissing: (seqs) => nacks.push(seqs),
    nackRetryMs: 40,
    nackRetries: 1,
    reorderWindowPackets: 8,
    maxGapWaitMs: 100,
    ...(maxFrameBytes === undefined ? {} : { maxFrameBytes }),
    now: () => clock.now,
  });
  return { a, frames, drops, nacks, requests: () => keyframeRequests };
}

describe('FrameAssembler (VP8)', () => {
  it('rejoins a frame split over packets, in order, with its RTP timestamp and keyframe flag', () => {
    const { a, frames } = assembler();
    const key = vp8Frame(true, 10);
    const delta = vp8Frame(false, 9, 3);
    for (const p of [...vp8Packets(100, 9000, key), ...vp8Packets(103, 12000, delta)]) a.push(p);
    expect(frames).toEqual([
      { codec: 'vp8', rtpTimestamp: 9000, keyframe: true, data: key },
      { codec: 'vp8', rtpTimestamp: 12000, keyframe: false, data: delta },
    ]);
  });

  it('puts swapped packets back in order, across the 16-bit sequence wrap', () => {
    const { a, frames } = assembler();
    const key = vp8Frame(true, 16);
    const packets = vp8Packets(0xfffe, 1, key); // 0xfffe, 0xffff, 0, 1
    for (const i of [0, 2, 1, 3]) a.push(packets[i]!);
    expect(frames.map((f) => f.data)).toEqual([key]);
  });

  it('passes no delta frame before the first keyframe, and asks for one', () => {
    const { a, frames, drops, requests } = assembler();
    for (const p of vp8Packets(1, 3000, vp8Frame(false))) a.push(p);
    expect(frames).toEqual([]);
    expect(drops).toEqual(['awaiting_keyframe']);
    expect(requests()).toBe(1);
    for (const p of vp8Packets(4, 6000, vp8Frame(true))) a.push(p);
    expect(frames.map((f) => f.keyframe)).toEqual([true]);
  });

  it('gives a hole up once the reorder window fills: drops frames until the next keyframe, asking for one', () => {
    const { a, frames, drops, requests } = assembler();
    for (const p of vp8Packets(10, 1000, vp8Frame(true))) a.push(p); // seq 10-12
    const broken = vp8Packets(13, 2000, vp8Frame(false)); // 13-15, 14 lost
    a.push(broken[0]!);
    a.push(broken[2]!);
    // Later delta frames pile up behind the hole until the window (8 packets) overflows.
    const later = [
      ...vp8Packets(16, 3000, vp8Frame(false)),
      ...vp8Packets(19, 4000, vp8Frame(false)),
      ...vp8Packets(22, 5000, vp8Frame(false)),
    ];
    for (const p of later) a.push(p);
    expect(a.lostPackets).toBe(1);
    expect(frames.map((f) => f.rtpTimestamp)).toEqual([1000]);
    expect(drops).toEqual(['packet_lost', 'awaiting_keyframe', 'awaiting_keyframe', 'awaiting_keyframe']);
    // The hole, then each delta frame dropped while waiting, asks again: the session spaces the PLIs out.
    expect(requests()).toBe(4);
    for (const p of vp8Packets(25, 6000, vp8Frame(true))) a.push(p);
    expect(frames.map((f) => f.rtpTimestamp)).toEqual([1000, 6000]);
  });

  it('gives a hole up after maxGapWaitMs even when few packets wait behind it', () => {
    const clock = { now: 0 };
    const { a, frames, requests } = assembler('vp8', clock);
    for (const p of vp8Packets(10, 1000, vp8Frame(true))) a.push(p);
    const next = vp8Packets(13, 2000, vp8Frame(true)); // 13-15, 13 lost
    a.push(next[1]!);
    clock.now = 99;
    a.push(next[2]!);
    expect(requests()).toBe(0);
    clock.now = 100;
    a.push(vp8Packets(16, 3000, vp8Frame(true))[0]!);
    expect(a.lostPackets).toBe(1);
    expect(requests()).toBe(1);
    expect(frames.map((f) => f.rtpTimestamp)).toEqual([1000]);
  });

  it('reports a hole at once, again after nackRetryMs while still open, and a resend that fills it saves the frame', () => {
    const clock = { now: 0 };
    const { a, frames, nacks, requests } = assembler('vp8', clock);
    for (const p of vp8Packets(10, 1000, vp8Frame(true))) a.push(p); // 10-12
    const next = vp8Packets(13, 2000, vp8Frame(false, 16)); // 13-16: 14 and 15 lost
    a.push(next[0]!);
    a.push(next[3]!);
    expect(nacks).toEqual([[14, 15]]);
    clock.now = 39;
    a.push(packet({ seq: 17, ts: 2100, payload: new Uint8Array() }));
    clock.now = 40;
    a.push(packet({ seq: 18, ts: 2100, payload: new Uint8Array() }));
    expect(nacks).toEqual([
      [14, 15],
      [14, 15],
    ]);
    clock.now = 80;
    a.push(packet({ seq: 19, ts: 2100, payload: new Uint8Array() }));
    expect(nacks).toHaveLength(2); // one retry only
    a.push(next[2]!);
    a.push(next[1]!); // the resends arrive, in any order
    expect(frames.map((f) => f.rtpTimestamp)).toEqual([1000, 2000]);
    expect(requests()).toBe(0);
    expect(a.lostPackets).toBe(0);
  });

  it('drops a frame that grows past maxFrameBytes while it is assembled, and takes the next keyframe', () => {
    const { a, frames, drops } = assembler('vp8', { now: 0 }, 16);
    for (const p of vp8Packets(1, 3000, vp8Frame(true, 40))) a.push(p); // 10 packets of 4 bytes: cut at 20
    expect(frames).toEqual([]);
    expect(drops).toEqual(['too_large']);
    const next = vp8Frame(true, 12);
    for (const p of vp8Packets(11, 6000, next)) a.push(p);
    expect(frames.map((f) => f.data)).toEqual([next]);
  });

  it('counts a padding-only packet in the sequence without adding media', () => {
    const { a, frames } = assembler();
    const key = vp8Packets(1, 1000, vp8Frame(true, 4)); // one packet
    a.push(key[0]!);
    a.push(packet({ seq: 2, ts: 1000, payload: new Uint8Array(), padding: 200 }));
    for (const p of vp8Packets(3, 2000, vp8Frame(false, 4))) a.push(p);
    expect(frames.map((f) => f.rtpTimestamp)).toEqual([1000, 2000]);
    expect(a.lostPackets).toBe(0);
  });
});

describe('FrameAssembler (H.264)', () => {
  const nal = (type: number, length: number) => Uint8Array.from({ length }, (_, i) => (i === 0 ? 0x60 | type : i));
  const annexB = (...units: Uint8Array[]) => Uint8Array.from(units.flatMap((u) => [0, 0, 0, 1, ...u]));

  it('splits a STAP-A, rejoins FU-A fragments, and marks the access unit with an IDR as a keyframe', () => {
    const { a, frames } = assembler('h264');
    const sps = nal(7, 5);
    const pps = nal(8, 3);
    const idr = nal(5, 20);
    const stapA = Uint8Array.of(0x78, 0, sps.length, ...sps, 0, pps.length, ...pps);
    const fu = (start: boolean, end: boolean, body: Uint8Array) => Uint8Array.of(0x7c, (start ? 0x80 : 0) | (end ? 0x40 : 0) | 5, ...body);
    a.push(packet({ seq: 1, ts: 90, payload: stapA }));
    a.push(packet({ seq: 2, ts: 90, payload: fu(true, false, idr.subarray(1, 10)) }));
    a.push(packet({ seq: 3, ts: 90, marker: true, payload: fu(false, true, idr.subarray(10)) }));
    const slice = nal(1, 6);
    a.push(packet({ seq: 4, ts: 180, marker: true, payload: slice }));
    expect(frames).toEqual([
      { codec: 'h264', rtpTimestamp: 90, keyframe: true, data: annexB(sps, pps, idr) },
      { codec: 'h264', rtpTimestamp: 180, keyframe: false, data: annexB(slice) },
    ]);
  });
});
