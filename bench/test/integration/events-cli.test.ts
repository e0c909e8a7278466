/**
 * `pnpm events` as a user runs it (the CLI in a child process): a tiny synthetic det.txt in which one person walks
 * across a line. No Python, no gateway.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BENCH = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
let dir: string;

function events(...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'events/main.ts', ...args], { cwd: BENCH });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sightline-events-'));
  // frame,id,x,y,w,h,conf: a 40x120 person walking right 10 px a frame, with a false alarm now and then far away.
  const lines: string[] = [];
  for (let f = 1; f <= 40; f++) {
    lines.push(`${f},-1,${100 + 10 * f},180,40,120,0.9,-1,-1,-1`);
    if (f % 9 === 0) lines.push(`${f},-1,20,20,30,60,0.55,-1,-1,-1`);
  }
  writeFileSync(join(dir, 'det.txt'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'rules.json'), JSON.stringify({ lines: [{ name: 'door', from: [0.5, 0.9], to: [0.5, 0.1] }] }));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('pnpm events', () => {
  it('writes one JSON event per line, with its frame, and the counts to stderr', async () => {
    const out = join(dir, 'events.jsonl');
    const { stderr } = await events(
      '--det',
      join(dir, 'det.txt'),
      '--rules',
      join(dir, 'rules.json'),
      '--out',
      out,
      '--fps',
      '25',
      '--size',
      '640x480',
    );
    const written = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({
      id: 'file-1',
      camera: 'file',
      rule: 'door',
      type: 'line_cross',
      direction: 'in',
      trackId: 1,
      label: 'person',
    });
    expect(written[0]!.frame).toEqual(expect.any(Number));
    expect(stderr).toMatch(/^1 events over 40 frames \(640x480, 25 fps\)/);
    expect(stderr).toMatch(/door\s+in\s+person\s+1/);

    // Anchored on the detections' own boxes (as a caller that gives the engine no trackBox): the same one crossing.
    await events('--det', join(dir, 'det.txt'), '--rules', join(dir, 'rules.json'), '--out', out, '--detection-boxes');
    expect(
      readFileSync(out, 'utf8')
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    ).toMatchObject([{ rule: 'door', direction: 'in' }]);
  });

  it('names the camera, and takes a GET /api/cameras/NAME/rules answer as rules', async () => {
    const out = join(dir, 'named.jsonl');
    writeFileSync(
      join(dir, 'served.json'),
      JSON.stringify({ camera: 'hall', updatedAt: 1, lines: [{ name: 'door', from: [0.5, 0.9], to: [0.5, 0.1] }], zones: [] }),
    );
    await events('--det', join(dir, 'det.txt'), '--rules', join(dir, 'served.json'), '--out', out, '--camera', 'hall');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ camera: 'hall', id: 'hall-1' });
  });

  it('refuses bad rules in one line naming the field, and a bad camera or size', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ lines: [{ name: 'door', from: [0.5, 1.5], to: [0.5, 0.1] }] }));
    const base = ['--det', join(dir, 'det.txt'), '--out', join(dir, 'x.jsonl')];
    await expect(events(...base, '--rules', join(dir, 'bad.json'))).rejects.toMatchObject({
      stderr: expect.stringMatching(/bad\.json: lines\[0\]\.from\[1\]: must be a number from 0 to 1\n$/),
    });
    await expect(events(...base, '--rules', join(dir, 'rules.json'), '--camera', 'a b')).rejects.toMatchObject({
      stderr: expect.stringMatching(/--camera: camera name must be/),
    });
    await expect(events(...base, '--rules', join(dir, 'rules.json'), '--size', '640')).rejects.toMatchObject({
      stderr: expect.stringMatching(/--size must be WIDTHxHEIGHT/),
    });
    writeFileSync(join(dir, 'not-json.json'), '{ lines: ');
    await expect(events(...base, '--rules', join(dir, 'not-json.json'))).rejects.toMatchObject({
      stderr: expect.stringMatching(/not-json\.json: .*JSON/),
    });
  });
});
