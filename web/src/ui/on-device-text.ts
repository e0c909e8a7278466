/** On-device inference in words: how the model runs here, what its download cost, or why it does not run. */
import type { OnDeviceState } from '../inference/on-device-engine.ts';
import type { InferenceBackend } from '../inference/worker-protocol.ts';
import { formatBytes } from './format.ts';

export const BACKEND_LABELS: Readonly<Record<InferenceBackend, string>> = { wasm: 'WASM SIMD', webgpu: 'WebGPU' };

/** "850 ms", "3.2 s". */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "WASM SIMD · 2 threads", "WebGPU". */
export function runtimeLabel(state: Pick<OnDeviceState, 'backend' | 'threads'>): string {
  if (!state.backend) return '';
  if (state.backend === 'webgpu') return BACKEND_LABELS.webgpu;
  const threads = state.threads ?? 1;
  return `${BACKEND_LABELS.wasm} · ${threads} ${threads === 1 ? 'thread' : 'threads'}`;
}

/** One line about the model on this device, for the "Run on" control. */
export function onDeviceStatusText(state: OnDeviceState): string {
  switch (state.status) {
    case 'off':
      return 'The model is loaded into this browser when you pick This device or Both.';
    case 'unavailable':
      return `Not available: ${state.reason ?? 'this model cannot run in the browser'}.`;
    case 'error':
      return `Failed: ${state.reason ?? 'unknown error'}`;
    case 'loading': {
      const { progress } = state;
      if (progress && progress.loadedBytes < progress.totalBytes) {
        return `Downloading the model: ${formatBytes(progress.loadedBytes)} of ${formatBytes(progress.totalBytes)}…`;
      }
      return progress ? 'Model downloaded and checked; starting the runtime…' : 'Loading the model…';
    }
    case 'ready': {
      const file = state.file;
      const fetched = file
        ? file.source === 'cache'
          ? `model ${formatBytes(file.bytes)} from the browser's cache`
          : `model ${formatBytes(file.bytes)} downloaded in ${formatDuration(file.fetchMs)}`
        : 'model loaded';
      return `${runtimeLabel(state)} · ${fetched}, SHA-256 checked · ready in ${formatDuration(state.loadMs)}`;
    }
  }
}

/** Why WASM runs on one thread, or why WebGPU is not used, when that is worth saying. */
export function onDeviceNotes(state: OnDeviceState): string[] {
  const notes: string[] = [];
  if (state.status === 'ready' && state.backend === 'wasm' && state.crossOriginIsolated === false) {
    notes.push('One thread: this page is not cross-origin isolated (no SharedArrayBuffer).');
  }
  if (state.status === 'ready' && state.webGpuNote) notes.push(`No WebGPU: ${state.webGpuNote}.`);
  return notes;
}
