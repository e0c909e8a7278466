/**
 * The dashboard's on-device inference path driven directly: the inference worker of this run's build
 * (web/src/inference/inference.worker.ts, found by name in the build's assets) is started in a page of
 * the gateway (cross-origin isolated, under the gateway's CSP) and spoken to with its own message
 * protocol: load a model (download, SHA-256 check, onnxruntime-web session), then detect JPEG frames.
 * Also: matching a browser's detections against the gateway's.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { Detection, ModelInfo } from '@sightline/shared/protocol';
import { onDeviceSpec, type OnDeviceSpec } from '@sightline/web/on-device-model';
import type { LoadedReply, ResultReply } from '@sightline/web/worker-protocol';
import { WEB_DIST } from './paths.ts';

/** `/assets/inference.worker-<hash>.js` of the build the tests' gateways serve. */
export function inferenceWorkerPath(webDist = WEB_DIST): string {
  const name = readdirSync(join(webDist, 'assets')).find((file) => /^inference\.worker-[\w-]+\.js$/.test(file));
  if (!name) throw new Error(`no inference.worker-*.js in ${webDist}/assets: build the dashboard first`);
  return `/assets/${name}`;
}

export function specOf(info: ModelInfo): OnDeviceSpec {
  const support = onDeviceSpec(info);
  if (!support.ok) throw new Error(support.reason);
  return support.spec;
}

export interface OnDeviceRun {
  crossOriginIsolated: boolean;
  loaded: LoadedReply;
  /** One per frame, in order; `roundTripMs` is the page's hand-over to the result. */
  results: (ResultReply & { roundTripMs: number })[];
}

/**
 * In `page` (already on a gateway URL): a fresh inference worker loads `spec` with `threads`, then
 * detects every frame `repeat` times in turn, one at a time.
 */
export async function runOnDevice(
  page: Page,
  options: { workerPath: string; spec: OnDeviceSpec; threads: number; frames: Uint8Array[]; threshold: number; repeat?: number },
): Promise<OnDeviceRun> {
  // Scripts run with tsx get esbuild's keepNames, whose __name helper does not exist in the page.
  await page.evaluate('globalThis.__name ??= (fn) => fn');
  return page.evaluate(
    async ({ workerPath, spec, threads, frames, threshold, repeat }) => {
      const worker = new Worker(workerPath, { type: 'module', name: 'inference' });
      type Reply = { type: string } & Record<string, unknown>;
      const next = (type: string): Promise<Reply> =>
        new Promise((resolve, reject) => {
          worker.onmessage = (event: MessageEvent<Reply>) => {
            if (event.data.type === 'progress') return;
            if (event.data.type === type) resolve(event.data);
            else reject(new Error(`inference worker: ${JSON.stringify(event.data)}`));
          };
          worker.onerror = (event) => reject(new Error(`inference worker: ${event.message}`));
        });
      try {
        const loading = next('loaded');
        worker.postMessage({ type: 'load', model: spec, threads, allowWebGpu: false });
        const loaded = await loading;
        const results: Reply[] = [];
        let id = 0;
        for (let round = 0; round < repeat; round++) {
          for (const frame of frames) {
            const image = new Uint8Array(frame).buffer;
            const answered = next('result');
            const sent = performance.now();
            worker.postMessage({ type: 'detect', id: ++id, image, threshold }, [image]);
            const result = await answered;
            results.push({ ...result, roundTripMs: performance.now() - sent });
          }
        }
        return { crossOriginIsolated, loaded, results };
      } finally {
        worker.terminate();
      }
    },
    // Plain arrays: Playwright serialises typed arrays poorly.
    { ...options, frames: options.frames.map((frame) => [...frame]), repeat: options.repeat ?? 1 },
  ) as unknown as Promise<OnDeviceRun>;
}

function iou(a: Detection['box'], b: Detection['box']): number {
  const ix = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const intersection = ix * iy;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - intersection;
  return union > 0 ? intersection / union : 0;
}

export interface DetectionMatch {
  label: string;
  gatewayScore: number;
  browserScore: number;
  iou: number;
}

export interface MatchReport {
  matched: DetectionMatch[];
  /** Detections one side has and the other has not (label, score, side). */
  unmatched: { side: 'gateway' | 'browser'; label: string; score: number }[];
}

/** Pairs each gateway detection with the browser detection of the same label that overlaps it most. */
export function matchDetections(gateway: readonly Detection[], browser: readonly Detection[]): MatchReport {
  const left = [...browser];
  const matched: DetectionMatch[] = [];
  const unmatched: MatchReport['unmatched'] = [];
  for (const g of [...gateway].sort((a, b) => b.score - a.score)) {
    let best = -1;
    let bestIou = 0;
    left.forEach((b, i) => {
      if (b.label !== g.label) return;
      const overlap = iou(g.box, b.box);
      if (overlap > bestIou) [best, bestIou] = [i, overlap];
    });
    if (best < 0) {
      unmatched.push({ side: 'gateway', label: g.label, score: g.score });
      continue;
    }
    const [b] = left.splice(best, 1);
    matched.push({ label: g.label, gatewayScore: g.score, browserScore: b!.score, iou: bestIou });
  }
  for (const b of left) unmatched.push({ side: 'browser', label: b.label, score: b.score });
  return { matched, unmatched };
}
