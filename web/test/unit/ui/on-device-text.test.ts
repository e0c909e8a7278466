import { describe, expect, it } from 'vitest';
import { formatDuration, onDeviceNotes, onDeviceStatusText, runtimeLabel } from '../../../src/ui/on-device-text.ts';

const ready = {
  status: 'ready' as const,
  model: 'ssd',
  backend: 'wasm' as const,
  threads: 2,
  crossOriginIsolated: true,
  file: { bytes: 18_065_067, source: 'network' as const, fetchMs: 1460, verifyMs: 60 },
  loadMs: 3200,
};

describe('on-device wording', () => {
  it('names the runtime, the download size and time, and the load time', () => {
    expect(runtimeLabel(ready)).toBe('WASM SIMD · 2 threads');
    expect(runtimeLabel({ backend: 'wasm', threads: 1 })).toBe('WASM SIMD · 1 thread');
    expect(runtimeLabel({ backend: 'webgpu' })).toBe('WebGPU');
    expect(onDeviceStatusText(ready)).toBe('WASM SIMD · 2 threads · model 17.23 MiB downloaded in 1.5 s, SHA-256 checked · ready in 3.2 s');
    expect(onDeviceStatusText({ ...ready, file: { ...ready.file, source: 'cache' } })).toMatch(/model 17.23 MiB from the browser's cache/);
  });

  it('follows a download, and says why the model does not run', () => {
    expect(onDeviceStatusText({ status: 'loading', progress: { loadedBytes: 1024 * 1024, totalBytes: 4 * 1024 * 1024 } })).toBe(
      'Downloading the model: 1.00 MiB of 4.00 MiB…',
    );
    expect(onDeviceStatusText({ status: 'loading', progress: { loadedBytes: 10, totalBytes: 10 } })).toMatch(/starting the runtime/);
    expect(onDeviceStatusText({ status: 'error', reason: 'checksum mismatch' })).toBe('Failed: checksum mismatch');
    expect(onDeviceStatusText({ status: 'unavailable', reason: 'no file' })).toBe('Not available: no file.');
  });

  it('notes one thread without isolation, and why not WebGPU', () => {
    expect(onDeviceNotes(ready)).toEqual([]);
    expect(onDeviceNotes({ ...ready, threads: 1, crossOriginIsolated: false, webGpuNote: 'WebGPU offers no adapter here' })).toEqual([
      'One thread: this page is not cross-origin isolated (no SharedArrayBuffer).',
      'No WebGPU: WebGPU offers no adapter here.',
    ]);
  });

  it('durations in ms below a second', () => {
    expect(formatDuration(850.4)).toBe('850 ms');
    expect(formatDuration(3249)).toBe('3.2 s');
    expect(formatDuration(undefined)).toBe('–');
  });
});
