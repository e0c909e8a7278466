/**
 * The Python WebRTC peer imports the FastAPI baseline's server.py, so its venv must hold the baseline's packages
 * at the baseline's versions: the same onnxruntime, numpy and Pillow on both sides of a comparison.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** `name[extras]==version` lines -> name (lower case, with its extras) -> version; comments and blanks skipped. */
function pins(relative: string): Map<string, string> {
  const text = readFileSync(fileURLToPath(new URL(relative, import.meta.url)), 'utf8');
  const entries = text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line) => {
      const match = /^([A-Za-z0-9_.[\]-]+)==([^\s;]+)$/.exec(line);
      if (!match) throw new Error(`${relative}: not pinned with ==: ${line}`);
      return [match[1]!.toLowerCase(), match[2]!] as const;
    });
  return new Map(entries);
}

describe('the WebRTC peer requirements', () => {
  const webrtc = pins('../../../baselines/webrtc/requirements.txt');
  const fastapi = pins('../../../baselines/fastapi/requirements.txt');

  it('pin the FastAPI baseline packages at its versions (OpenCV aside: only server_opencv.py needs it)', () => {
    const needed = [...fastapi].filter(([name]) => name !== 'opencv-python-headless');
    expect(needed.length).toBeGreaterThan(0);
    for (const [name, version] of needed) expect(webrtc.get(name), name).toBe(version);
  });

  it('pin aiortc, PyAV and aiohttp', () => {
    for (const name of ['aiortc', 'av', 'aiohttp']) expect(webrtc.get(name), name).toMatch(/^\d+\.\d+/);
  });
});
