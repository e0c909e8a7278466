import { describe, expect, it } from 'vitest';
import { activeKinds, codecColumnSpecs } from '../../../src/ui/codec-columns.ts';

describe('codec comparison columns', () => {
  it('always has the WebSocket JPEG columns, and one per codec and transport frames went in or go in now, those first', () => {
    expect(codecColumnSpecs([], []).map((column) => column.id)).toEqual(['json', 'msgpack']);
    // A/B of VP8 and MessagePack: the two side by side, the idle JSON column after them.
    expect(
      codecColumnSpecs([{ transport: 'websocket', codec: 'vp8' }], [{ transport: 'websocket', codec: 'msgpack' }]).map(
        (column) => column.id,
      ),
    ).toEqual(['msgpack', 'vp8', 'json']);
    const columns = codecColumnSpecs(
      [
        { transport: 'webrtc', codec: 'vp8' },
        { transport: 'websocket', codec: 'h264' },
      ],
      [{ transport: 'webrtc', codec: 'msgpack' }],
    );
    expect(columns.map((column) => [column.id, column.label])).toEqual([
      ['h264', 'H.264'],
      ['webrtc-msgpack', 'WebRTC channel · MessagePack'],
      ['webrtc-vp8', 'WebRTC track · VP8'],
      ['json', 'JSON + Base64'],
      ['msgpack', 'MessagePack'],
    ]);
  });

  it('counts the chosen codec and its A/B partner as active, none on this device alone, no partner on a track', () => {
    expect(activeKinds({ codec: 'vp8', abMode: true, runOn: 'gateway' }, 'websocket', false)).toEqual([
      { transport: 'websocket', codec: 'vp8' },
      { transport: 'websocket', codec: 'msgpack' },
    ]);
    expect(activeKinds({ codec: 'vp8', abMode: true, runOn: 'gateway' }, 'webrtc', true)).toEqual([{ transport: 'webrtc', codec: 'vp8' }]);
    expect(activeKinds({ codec: 'json', abMode: false, runOn: 'device' }, 'websocket', false)).toEqual([]);
  });
});
