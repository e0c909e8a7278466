/**
 * What the production image runs, without a container engine: the gateway bundle and the tree
 * deploy/image/assemble.mjs lays out for the Dockerfile, started from a folder outside the workspace
 * (no node_modules above it, no TypeScript loader), detecting with both models, decoding JPEG with
 * libjpeg-turbo from the pruned packages, decoding video with the FFmpeg 9.0.2 it carries (the pinned binary
 * `pnpm install` fetched, through ffmpeg-limited.sh, as the image does: limits, empty environment, no inherited
 * descriptors; named in /metrics), answering WHIP (node-datachannel),
 * serving the dashboard without source maps, and stopping on
 * SIGTERM with exit code 0 after a logged drain.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { freePort, ServerProcess } from '@sightline/harness/process';
import { readPhoto } from '@sightline/shared/fixtures';
import { validateServerMessage } from '@sightline/shared/validation';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under `dir`, relative to it. */
function files(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

describe('the image tree (bundle + assemble.mjs)', () => {
  let out: string;
  let gateway: ServerProcess | undefined;

  beforeAll(async () => {
    if (!existsSync(join(root, 'web', 'dist', 'index.html'))) {
      await run('pnpm', ['--filter', '@sightline/web', 'build'], { cwd: root, timeout: 150_000 });
    }
    await run(process.execPath, ['scripts/bundle.mjs'], { cwd: join(root, 'gateway'), timeout: 60_000 });
    out = mkdtempSync(join(tmpdir(), 'sightline-image-'));
    const { stdout } = await run(process.execPath, [join(root, 'deploy', 'image', 'assemble.mjs'), join(out, 'app')], { timeout: 60_000 });
    console.log(stdout.trim());
  }, 240_000);

  afterAll(async () => {
    await gateway?.stop('SIGKILL');
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('carries only this platform, no sources and no source maps', () => {
    const app = join(out, 'app');
    const all = files(app);
    expect(all.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(all.filter((f) => /\.(ts|tsx)$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(all.filter((f) => /(^|\/)(win32|darwin)[-_/]|jpeg-turbo-(win32|darwin)/.test(f))).toEqual([]);
    for (const js of all.filter((f) => f.startsWith('web/dist/') && f.endsWith('.js'))) {
      expect(readFileSync(join(app, js), 'utf8'), js).not.toMatch(/sourceMappingURL/);
    }
    // No build tool came along with the native modules.
    const packages = readdirSync(join(app, 'gateway', 'node_modules'));
    for (const tool of ['typescript', 'tsx', 'esbuild', 'vite', 'vitest', 'pnpm', 'cmake-js']) expect(packages).not.toContain(tool);
    // The 2018 ffmpeg of @ffmpeg-installer is gone; the pinned FFmpeg 9.0.2 is there, with where it came from.
    expect(packages).not.toContain('@ffmpeg-installer');
    expect(all.filter((f) => f.startsWith('gateway/.ffmpeg/')).sort()).toEqual([
      'gateway/.ffmpeg/9.0.2/SOURCE.json',
      'gateway/.ffmpeg/9.0.2/ffmpeg',
    ]);
    const source = JSON.parse(readFileSync(join(app, 'gateway', '.ffmpeg', '9.0.2', 'SOURCE.json'), 'utf8'));
    expect(source).toMatchObject({ ffmpeg: '9.0.2', from: { registry: 'PyPI', project: 'imageio-ffmpeg', version: '0.8.1' } });
    expect(source.licence).toContain('GPL-3.0-or-later');
  });

  it('starts ffmpeg through ffmpeg-limited.sh with its limits, an empty environment and no inherited descriptors', async () => {
    const script = join(out, 'app', 'ffmpeg-limited.sh');
    const { stdout: version } = await run(script, ['-hide_banner', '-version']);
    expect(version).toMatch(/^ffmpeg version n9\.0\.2-/);
    // A decoder as the gateway starts one, with a secret in the environment and a descriptor more than stdio.
    const child = spawn(
      script,
      ['-hide_banner', '-nostdin', '-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc=rate=5', '-t', '20', '-f', 'null', '-'],
      { env: { ...process.env, SIGHTLINE_TOKEN: 'not-for-the-decoder' }, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
    );
    try {
      // The wrapper execs ffmpeg in its own process: once it has, the process's limits, environment and descriptors.
      const pid = child.pid!;
      const deadline = Date.now() + 20_000;
      while (
        !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('testsrc') ||
        readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'ffmpeg'
      ) {
        if (Date.now() > deadline) throw new Error('ffmpeg did not start');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const limits = readFileSync(`/proc/${pid}/limits`, 'utf8');
      expect(limits).toMatch(/Max address space\s+536870912\s+536870912/);
      expect(limits).toMatch(/Max file size\s+0\s+0/);
      expect(limits).toMatch(/Max core file size\s+0\s+0/);
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).toBe('');
      // The extra pipe (fd 3) was closed before ffmpeg started.
      expect(
        readdirSync(`/proc/${pid}/fd`)
          .map(Number)
          .sort((a, b) => a - b),
      ).toEqual([0, 1, 2]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('runs from it: detects, decodes with libjpeg-turbo, stops on SIGTERM with exit 0 after a drain', async () => {
    const port = await freePort();
    gateway = await ServerProcess.start({
      name: 'bundled gateway',
      command: process.execPath,
      args: ['gateway/dist/main.mjs'],
      cwd: join(out, 'app'),
      port,
      // No TypeScript loader inherited from the test runner: the bundle is plain JavaScript.
      env: {
        NODE_OPTIONS: '',
        PORT: String(port),
        HOST: '127.0.0.1',
        SIGHTLINE_THREADS: '1',
        SIGHTLINE_WORKERS: '1',
        LOG_LEVEL: 'info',
        // As the image sets it (Dockerfile): the tree's ffmpeg through the wrapper that limits it.
        SIGHTLINE_FFMPEG: join(out, 'app', 'ffmpeg-limited.sh'),
      },
    });
    const detect = async (photo: string, model: string) => {
      const response = await fetch(`${gateway!.url}/api/detect?model=${model}`, {
        method: 'POST',
        body: readPhoto(photo),
        headers: { 'content-type': 'image/jpeg' },
      });
      expect(response.status).toBe(200);
      const answer = validateServerMessage(await response.json());
      return answer.type === 'detections' ? answer.detections.map((d) => d.label) : [];
    };
    expect(await detect('dog.jpg', 'ssdlite-mobilenetv2-coco')).toContain('dog');
    expect(await detect('astronaut.jpg', 'blazeface-back-256')).toContain('face');
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toMatch(/sightline_decodes_total\{decoder="turbo"[^}]*\} [1-9]/);
    expect(metrics).toMatch(
      /sightline_video_decoder_info\{implementation="ffmpeg-process",ffmpeg_version="9\.0\.2",hardware="none"[^}]*\} 1/,
    );
    expect((await fetch(`${gateway.url}/`)).status).toBe(200);
    // Video: the FFmpeg the tree carries decodes VP8, VP9 and H.264; WebRTC: node-datachannel's binary loads.
    const hello = await new Promise<unknown>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      ws.once('message', (data) => (resolve(JSON.parse(String(data))), ws.close()));
      ws.once('error', reject);
    });
    expect(hello).toMatchObject({ type: 'hello', video: { codecs: ['vp8', 'vp9', 'h264'] } });
    expect(gateway.output()).toMatch(/"ffmpeg":"[^"]*ffmpeg-limited\.sh"[^}]*"ffmpegVersion":"9\.0\.2"[^}]*"msg":"video decoding"/);
    expect((await fetch(`${gateway.url}/whip`, { method: 'OPTIONS' })).status).toBe(204);

    await gateway.stop('SIGTERM', 15_000);
    expect({ code: gateway.child.exitCode, signal: gateway.child.signalCode }).toEqual({ code: 0, signal: null });
    expect(gateway.output()).toMatch(/"msg":"drained; exiting"/);
  });
});
