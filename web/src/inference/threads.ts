/**
 * How many WASM threads on-device inference gets. Threads need SharedArrayBuffer, which browsers give
 * only to cross-origin isolated pages (COOP same-origin + COEP require-corp, sent by the gateway and the
 * Vite server); elsewhere it is one.
 */

/** "auto" or a thread count chosen by the person. */
export type ThreadsSetting = 'auto' | number;

export const THREAD_CHOICES: readonly ThreadsSetting[] = ['auto', 1, 2, 4];
/** More than this brings nothing for models this size and starves the page. */
export const MAX_WASM_THREADS = 4;

export interface ThreadEnvironment {
  crossOriginIsolated: boolean;
  /** navigator.hardwareConcurrency (0 or undefined when the browser hides it). */
  hardwareConcurrency: number | undefined;
}

/**
 * Threads for a setting in this browser: 1 without isolation. Auto leaves one core to the page (the video,
 * the compositor, JPEG encoding) and takes the rest up to MAX_WASM_THREADS: 1 on 2 cores, 3 on 4, 4 on 8.
 * On the project's 2-core machine, with the camera playing, 2 threads made on-device inference slower
 * than 1 and the video less smooth (docs/BENCHMARKS.md).
 */
export function wasmThreads(setting: ThreadsSetting, environment: ThreadEnvironment): number {
  if (!environment.crossOriginIsolated) return 1;
  const cores = Math.max(1, Math.floor(environment.hardwareConcurrency ?? 1) || 1);
  if (setting === 'auto') return Math.max(1, Math.min(cores - 1, MAX_WASM_THREADS));
  if (!Number.isFinite(setting)) return 1;
  return Math.min(Math.max(1, Math.round(setting)), MAX_WASM_THREADS);
}
