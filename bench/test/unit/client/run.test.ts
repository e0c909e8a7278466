import { describe, expect, it } from 'vitest';
import { InputCursor, wireCodecOf } from '../../../client/run.ts';
import type { FrameInput } from '../../../client/types.ts';

const image = (name: string): FrameInput => ({ name, bytes: new Uint8Array([1]), contentType: 'image/jpeg', width: 1, height: 1 });
const chunk = (name: string, key: boolean): FrameInput => ({ ...image(name), contentType: 'video/vp8', video: { codec: 'vp8', key } });

describe('a client’s place in its inputs', () => {
  it('cycles images from its own offset, going on where the warm-up left off', () => {
    const cursor = new InputCursor([image('a'), image('b'), image('c')], 1);
    expect([cursor.take(), cursor.take(), cursor.take(), cursor.take()].map((i) => i.name)).toEqual(['b', 'c', 'a', 'b']);
  });

  it('sends a video stream in order, and skips ahead to the next keyframe when the gateway asked for one', () => {
    const clip = [chunk('k0', true), chunk('d1', false), chunk('d2', false), chunk('k3', true), chunk('d4', false)];
    const cursor = new InputCursor(clip, 0);
    expect([cursor.take(), cursor.take()].map((i) => i.name)).toEqual(['k0', 'd1']);
    expect(cursor.take(true).name).toBe('k3');
    expect(cursor.take().name).toBe('d4');
    // The clip loops back to its first frame, a keyframe; asking for one there takes it as it is.
    expect(cursor.take(true).name).toBe('k0');
    expect(cursor.take(false).name).toBe('d1');
  });

  it('asks for no keyframe of images', () => {
    const cursor = new InputCursor([image('a'), image('b')], 0);
    expect(cursor.take(true).name).toBe('a');
    expect(cursor.take(true).name).toBe('b');
  });

  it('has nothing to cycle without inputs', () => {
    expect(() => new InputCursor([], 0)).toThrow(/no input frames/);
  });

  it('sends video chunks as MessagePack, images in the codec asked for', () => {
    expect(wireCodecOf({ codec: 'json', video: undefined })).toBe('json');
    expect(wireCodecOf({ codec: 'vp8', video: { codec: 'vp8', bitrateKbps: 1000, keyframeInterval: 75 } })).toBe('msgpack');
    expect(() => wireCodecOf({ codec: 'raw', video: undefined })).toThrow(/not a WebSocket codec/);
  });
});
