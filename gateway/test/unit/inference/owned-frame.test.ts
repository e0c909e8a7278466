/** What the executor hands a worker: each frame's bytes in a buffer of their own, so moving them costs the caller nothing. */
import { describe, expect, it } from 'vitest';
import { readPhoto } from '@sightline/shared/fixtures';
import { ownedFrame } from '../../../src/inference/inference-executor.ts';

const dog = readPhoto('dog.jpg');
const header = { format: 'jpeg' as const, width: 640, height: 480, oriented: true, orientation: 1 };
const plan = { kind: 'sharp-native' as const, placement: { offsetX: 0, offsetY: 0, contentWidth: 300, contentHeight: 300 } };

describe('ownedFrame', () => {
  it("copies encoded bytes out of a shared buffer: the caller's message survives the transfer", () => {
    // A WebSocket message's bytes may sit inside a larger buffer shared with other messages.
    const shared = new Uint8Array(dog.length + 200).fill(0x5a);
    shared.set(dog, 100);
    const image = shared.subarray(100, 100 + dog.length);
    const owned = ownedFrame({ kind: 'encoded', bytes: image, header, plan });
    if (owned.kind !== 'encoded') throw new Error('not encoded');
    const taken = structuredClone(owned.bytes, { transfer: [owned.bytes.buffer as ArrayBuffer] });
    expect(Buffer.from(image).equals(dog)).toBe(true);
    expect(shared.buffer.byteLength).toBe(dog.length + 200);
    expect(taken.buffer.byteLength).toBe(dog.length);
    expect(Buffer.from(taken).equals(dog)).toBe(true);
  });

  it('moves decoded pixels made for the frame alone as they are, and copies a view into a larger buffer', () => {
    const data = new Uint8Array(4 * 4 * 3).fill(7);
    const pixels = {
      kind: 'pixels' as const,
      rgb: { data, width: 4, height: 4 },
      width: 4,
      height: 4,
      placement: plan.placement,
      decoder: 'test',
    };
    const owned = ownedFrame(pixels);
    expect(owned.kind === 'pixels' && owned.rgb.data).toBe(data);
    const view = new Uint8Array(1000).subarray(10, 10 + data.length);
    const copied = ownedFrame({ ...pixels, rgb: { ...pixels.rgb, data: view } });
    expect(copied.kind === 'pixels' && copied.rgb.data.buffer.byteLength).toBe(data.length);
  });
});
