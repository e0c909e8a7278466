/**
 * Notices changes under the models directory while the gateway runs and asks for a sync once they have
 * settled: copying a large model file takes many write events, and a sync in the middle would read a
 * truncated file (it would be reported, then read again when the copy ends).
 */
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../logger.ts';

/** Quiet time after the last change before the directory is read again. */
export const SETTLE_MS = 750;

export function watchModels(modelsDir: string, onSettled: () => void, logger: Logger, settleMs = SETTLE_MS): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(modelsDir, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(onSettled, settleMs);
    });
    watcher.on('error', (error) => logger.warn({ err: error, modelsDir }, 'watching the models directory failed; send SIGHUP to reload'));
  } catch (error) {
    logger.warn({ err: error, modelsDir }, 'cannot watch the models directory; send SIGHUP to reload');
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
  };
}
