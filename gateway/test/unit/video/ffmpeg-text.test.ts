/** What the decoder reads from ffmpeg's text: its log lines, its decoder and filter lists, its version; and the command it builds. */
import { describe, expect, it } from 'vitest';
import { decoderArgs } from '../../../src/video/ffmpeg-args.ts';
import { decodersOf, parseDecoderList, parseFilterList, parseVersion } from '../../../src/video/ffmpeg-binary.ts';
import { LineSplitter, parseLogLine } from '../../../src/video/ffmpeg-log.ts';

describe('log lines', () => {
  it("showinfo's line for a frame, as ffmpeg 4.1, 5.1 and 9.0 print it: pts, decoded size, key", () => {
    const v41 =
      '[Parsed_showinfo_0 @ 0x13633cc0] n:  12 pts:     12 pts_time:0.48    pos:   110709 fmt:yuv420p sar:0/1 s:640x480 i:P iskey:0 type:P checksum:00000000';
    const v51 =
      '[Parsed_showinfo_0 @ 0x56003bc95700] n:   0 pts:      0 pts_time:0       pos:       32 fmt:yuv420p sar:0/1 s:1280x720 i:P iskey:1 type:I ';
    expect(parseLogLine(v41)).toEqual({ kind: 'frame', pts: 12, width: 640, height: 480, key: false });
    expect(parseLogLine(v51)).toEqual({ kind: 'frame', pts: 0, width: 1280, height: 720, key: true });
    const v90 =
      '[Parsed_showinfo_0 @ 0x7fe03c001a00] n:   5 pts:      6 pts_time:0.24    duration:      1 duration_time:0.04    fmt:yuv420p cl:unspecified sar:0/1 s:640x480 i:P iskey:0 type:P ';
    expect(parseLogLine(v90)).toEqual({ kind: 'frame', pts: 6, width: 640, height: 480, key: false });
  });

  it('a packet that could not be decoded, in the words of ffmpeg up to 6 and of 7', () => {
    expect(parseLogLine('Error while decoding stream #0:0: Invalid data found when processing input')).toEqual({
      kind: 'decode-error',
      message: 'Invalid data found when processing input',
    });
    expect(parseLogLine('[vist#0:0/vp8 @ 0x5581] Decoding error: Invalid data found when processing input')).toMatchObject({
      kind: 'decode-error',
    });
    // 9.0's line for a corrupt chunk: the packet refused by the decoder.
    expect(
      parseLogLine(
        '[vist#0:0/vp8 @ 0x559c7498ae40] [dec:vp8 @ 0x559c749aa980] Error submitting packet to decoder: Invalid data found when processing input',
      ),
    ).toEqual({ kind: 'decode-error', message: 'Invalid data found when processing input' });
  });

  it("everything else is other: showinfo's colour line, the decoder's own complaint", () => {
    expect(parseLogLine('[Parsed_showinfo_0 @ 0x1] color_range:tv color_space:bt470bg').kind).toBe('other');
    expect(parseLogLine('[vp8 @ 0x5561] Discarding interframe without a prior keyframe!').kind).toBe('other');
  });

  it('lines split on LF and CR across chunk boundaries, and the last ones kept', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), 2);
    splitter.push(Buffer.from('one\ntw'));
    splitter.push(Buffer.from('o\r\nthree\rfour'));
    expect(lines).toEqual(['one', 'two', 'three']);
    expect(splitter.lastLines()).toEqual(['two', 'three', 'four']);
  });
});

describe("ffmpeg's lists", () => {
  const decoders = [
    'Decoders:',
    ' V..... = Video',
    ' ------',
    ' VFS..D h264                 H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10',
    ' V....D libvpx               libvpx VP8 (codec vp8)',
    ' VFS..D vp8                  On2 VP8',
    ' V....D libaom-av1           libaom AV1 (codec av1)',
    ' A....D aac                  AAC (Advanced Audio Coding)',
  ].join('\n');

  it('decoder names; the best decoder each codec has; AV1 not offered, even with dav1d', () => {
    const names = parseDecoderList(decoders);
    expect([...names]).toEqual(['h264', 'libvpx', 'vp8', 'libaom-av1', 'aac']);
    expect(decodersOf({ decoders: names })).toEqual({ vp8: 'vp8', h264: 'h264' });
    expect(decodersOf({ decoders: new Set(['libdav1d', 'libvpx-vp9']) })).toEqual({ vp9: 'libvpx-vp9' });
  });

  it('filter names, with three flags (up to ffmpeg 7) and two (from 8)', () => {
    const filters = [
      ' ..C scale             V->V       Scale the input video size',
      ' ... showinfo          V->V       Show textual information',
      ' .. format            V->V       Convert the input video to one of the specified pixel formats.',
      ' TS aap               AA->A      Apply Affine Projection algorithm to first audio stream.',
    ];
    expect([...parseFilterList(filters.join('\n'))]).toEqual(['scale', 'showinfo', 'format', 'aap']);
  });

  it('version, release and libavutil, from a release and from a git build', () => {
    expect(parseVersion('ffmpeg version 5.1.9-0+deb12u1 Copyright\nlibavutil      57. 28.100 / 57. 28.100')).toEqual({
      version: '5.1.9-0+deb12u1',
      release: { major: 5, minor: 1, patch: 9 },
      libavutil: { major: 57, minor: 28 },
    });
    expect(parseVersion('ffmpeg version n9.0.2-17-g2a571b6068-20260930 Copyright\nlibavutil      61.  1.102 / 61.  1.102')).toEqual({
      version: 'n9.0.2-17-g2a571b6068-20260930',
      release: { major: 9, minor: 0, patch: 2 },
      libavutil: { major: 61, minor: 1 },
    });
    expect(parseVersion('ffmpeg version N-47683-g0e8eb07980-static https://x\nlibavutil      56. 24.101 / 56. 24.101').libavutil).toEqual({
      major: 56,
      minor: 24,
    });
  });
});

describe('the decoder command', () => {
  const base = { decoder: 'vp8', output: { width: 300, height: 300 }, maxPixels: 1_000_000 };
  it('-vsync before ffmpeg 5.1, -fps_mode from it', () => {
    expect(decoderArgs({ ...base, libavutil: { major: 56, minor: 24 } })).toContain('-vsync');
    expect(decoderArgs({ ...base, libavutil: { major: 57, minor: 17 } })).toContain('-vsync');
    expect(decoderArgs({ ...base, libavutil: { major: 57, minor: 28 } })).toContain('-fps_mode');
    expect(decoderArgs({ ...base, libavutil: { major: 59, minor: 8 } })).toContain('-fps_mode');
  });

  it('one decoder thread and one encoder thread, the decoder named, showinfo before an area scale', () => {
    const args = decoderArgs({ ...base, libavutil: { major: 56, minor: 24 } });
    expect(args.filter((arg) => arg === '-threads')).toHaveLength(2);
    expect(args[args.indexOf('-c:v') + 1]).toBe('vp8');
    expect(args[args.indexOf('-max_pixels') + 1]).toBe('1000000');
    expect(args[args.indexOf('-vf') + 1]).toBe('showinfo=checksum=0,scale=300:300:flags=area,format=yuv420p');
    expect(args.at(-1)).toBe('pipe:1');
  });

  it('an odd size is scaled straight to RGB (4:2:0 needs even sizes)', () => {
    const args = decoderArgs({ ...base, output: { width: 300, height: 225 }, libavutil: { major: 56, minor: 24 } });
    expect(args[args.indexOf('-vf') + 1]).toBe('showinfo=checksum=0,scale=300:225:flags=area');
  });
});
