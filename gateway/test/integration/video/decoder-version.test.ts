/**
 * The decoder that runs is the one chosen, and no older: the ffmpeg the gateway picks by itself is the bundled
 * FFmpeg 9.0.2 (`pnpm install` fetched it; CI requires it) byte for byte as pinned, and says it is that
 * release, or, only where it was not fetched, an ffmpeg on PATH of the maintained minimum (5.1) or newer.
 * A lockfile, pin or script change that rolls the decoder back fails here. And each decoder process runs
 * under its limits: address space, no core, no file, an empty environment, as `pnpm start` starts it.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, readlinkSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import pin from '../../../scripts/fetch-ffmpeg.json' with { type: 'json' };
import { parseVersion } from '../../../src/video/ffmpeg-binary.ts';
import { openVideoStream, PATH_MINIMUM, probeVideoDecoding, readIvf } from '../../../src/video/index.ts';

const run = promisify(execFile);

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('the decoder version', () => {
  it('is the pinned FFmpeg (9.0.2, sha256 as pinned) when fetched, else at least 5.1 from PATH', async () => {
    const decoding = await probeVideoDecoding();
    if (!decoding.available) throw new Error(decoding.reason);
    const { ffmpeg } = decoding;
    const said = parseVersion((await run(ffmpeg.path, ['-hide_banner', '-version'])).stdout);
    // CI fetches with SIGHTLINE_FFMPEG_FETCH=required: there the bundled one must be what runs.
    if (process.env.CI || ffmpeg.source === 'bundled') {
      expect(ffmpeg.source).toBe('bundled');
      expect(said.release).toBeDefined();
      const [major, minor, patch] = pin.ffmpeg.split('.').map(Number);
      expect(said.release).toEqual({ major, minor, patch });
      expect(said.release!.major).toBeGreaterThanOrEqual(9);
      expect(await sha256(ffmpeg.path)).toBe(pin.platforms['linux-x64'].sha256);
    } else {
      expect(ffmpeg.source).toBe('path');
      const release = said.release ?? { major: 0, minor: 0 };
      expect(release.major * 100 + release.minor).toBeGreaterThanOrEqual(PATH_MINIMUM.release.major * 100 + PATH_MINIMUM.release.minor);
    }
  });
});

describe.runIf(process.platform === 'linux')("a decoder process's limits", () => {
  it('512 MiB of address space, no core dump, no file, an empty environment: ffmpeg itself under them (same pid)', async () => {
    const decoding = await probeVideoDecoding({ hwaccel: 'none' });
    if (!decoding.available) throw new Error(decoding.reason);
    expect(decoding.confinement.via).not.toBe('none');
    const { stdout } = await run(
      decoding.ffmpeg.path,
      [
        '-hide_banner',
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc2=s=320x240:r=25',
        '-frames:v',
        '2',
        '-c:v',
        'libvpx',
        '-f',
        'ivf',
        'pipe:1',
      ],
      { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
    );
    const chunks = readIvf(new Uint8Array(stdout)).frames;
    let frames = 0;
    const opened = openVideoStream({
      decoding,
      codec: 'vp8',
      width: 320,
      height: 240,
      target: { width: 300, height: 300, resize: 'stretch' },
      maxPixels: 40_000_000,
      onFrame: () => frames++,
    });
    if (!opened.ok) throw new Error(opened.error.message);
    const { decoder } = opened;
    try {
      expect(decoder.decode({ id: 0, key: true, timestamp: 0, data: chunks[0]!.data })).toBeUndefined();
      await expect.poll(() => frames, { timeout: 10_000 }).toBe(1);
      const pid = decoder.stats().pid!;
      expect(readlinkSync(`/proc/${pid}/exe`)).toBe(decoding.ffmpeg.path);
      const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
      expect(limits).toMatch(/^Max address space\s+536870912\s+536870912\s+bytes/m);
      expect(limits).toMatch(/^Max core file size\s+0\s+0\s+bytes/m);
      expect(limits).toMatch(/^Max file size\s+0\s+0\s+bytes/m);
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).toBe('');
      expect(decoder.stats().ffmpeg).toMatchObject({ path: decoding.ffmpeg.path, hardware: 'none' });
    } finally {
      await decoder.close();
    }
  });
});
