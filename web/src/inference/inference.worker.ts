/**
 * On-device inference worker: the page's "This device" path. It loads a model file (Cache API or the
 * gateway, SHA-256 checked), runs it with onnxruntime-web (WASM with SIMD, threads when the page is
 * cross-origin isolated; WebGPU when the browser offers an adapter) and turns a JPEG frame into
 * detections with the one frame function the gateway's inference workers call too (runFrame): only the
 * image decoding (createImageBitmap) and the runtime are the browser's own. Everything heavy happens
 * here, never on the main thread.
 *
 * onnxruntime-web is imported dynamically, so it is a chunk of its own: its WASM threads start workers
 * from that chunk's URL. Only the WASM build is loaded unless WebGPU is used (its build is ~25 MB more).
 */
import {
  createDecoder,
  letterboxPlacement,
  reusedFloatBuffers,
  runFrame,
  warmUpFramePath,
  type DecodedFrame,
  type FramePath,
  type ModelInput,
  type OutputTensor,
} from '@sightline/shared/model';
import type * as OrtWasm from 'onnxruntime-web/wasm';
import type { InferenceSession } from 'onnxruntime-web/wasm';
import { loadModelFile } from './model-file.ts';
import type { OnDeviceSpec } from './on-device-model.ts';
import { readbackSize, rgbaToRgb } from './pixels.ts';
import type { DetectRequest, InferenceBackend, LoadRequest, WorkerReply, WorkerRequest } from './worker-protocol.ts';

type Ort = typeof OrtWasm;

interface WorkerScope {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply): void;
  crossOriginIsolated?: boolean;
  caches?: CacheStorage;
  location: { href: string };
}

interface GpuNavigator {
  gpu?: { requestAdapter(): Promise<unknown> };
}

interface Loaded {
  session: InferenceSession;
  spec: OnDeviceSpec;
  path: FramePath;
}

const scope = self as unknown as WorkerScope;
const runtimes = new Map<InferenceBackend, Promise<Ort>>();
let loaded: Loaded | undefined;
/** Loads and frames run one at a time, in arrival order. */
let queue: Promise<void> = Promise.resolve();
let canvas: OffscreenCanvas | undefined;
let context: OffscreenCanvasRenderingContext2D | null = null;
let rgbBuffer: Uint8Array | undefined;

function runtime(backend: InferenceBackend, threads: number): Promise<Ort> {
  let promise = runtimes.get(backend);
  if (!promise) {
    promise = (backend === 'webgpu' ? import('onnxruntime-web/webgpu') : import('onnxruntime-web/wasm')).then((ort) => {
      // Read once, when the runtime first starts: a thread count is fixed for the life of this worker.
      ort.env.wasm.numThreads = threads;
      ort.env.wasm.proxy = false;
      ort.env.logLevel = 'error';
      return ort;
    });
    runtimes.set(backend, promise);
  }
  return promise;
}

async function webGpuAdapter(): Promise<{ ok: true } | { ok: false; note: string }> {
  const { gpu } = navigator as Navigator & GpuNavigator;
  if (!gpu) return { ok: false, note: 'this browser has no WebGPU' };
  const adapter = await gpu.requestAdapter().catch(() => null);
  return adapter ? { ok: true } : { ok: false, note: 'WebGPU offers no adapter here' };
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function load(request: LoadRequest): Promise<void> {
  const { model: spec } = request;
  if (loaded) {
    await loaded.session.release().catch(() => undefined);
    loaded = undefined;
  }
  const isolated = scope.crossOriginIsolated === true;
  const threads = isolated ? Math.max(1, request.threads) : 1;
  let backend: InferenceBackend = 'wasm';
  let webGpuNote: string | undefined;
  if (request.allowWebGpu) {
    const gpu = await webGpuAdapter();
    if (gpu.ok) backend = 'webgpu';
    else webGpuNote = gpu.note;
  }
  const ortPromise = runtime(backend, threads);
  const file = await loadModelFile(
    spec.file,
    {
      fetch: (url, init) => fetch(url, init),
      caches: scope.caches,
      subtle: crypto.subtle,
      now: () => performance.now(),
      baseUrl: scope.location.href,
    },
    (loadedBytes, totalBytes) => scope.postMessage({ type: 'progress', model: spec.name, loadedBytes, totalBytes }),
  );
  const ort = await ortPromise;
  const started = performance.now();
  let session: InferenceSession;
  try {
    session = await ort.InferenceSession.create(file.data, sessionOptions(backend));
  } catch (error) {
    if (backend !== 'webgpu') throw error;
    // The WebGPU build runs the CPU (WASM) provider too.
    webGpuNote = `WebGPU failed (${message(error)}); running on WASM`;
    backend = 'wasm';
    session = await ort.InferenceSession.create(file.data, sessionOptions('wasm'));
  }
  const sessionMs = performance.now() - started;
  const path: FramePath = {
    model: spec,
    decode: decodeInBrowser,
    run: async (inputs) => {
      const feeds: Record<string, InstanceType<Ort['Tensor']>> = {};
      for (const [name, tensor] of Object.entries(inputs)) feeds[name] = new ort.Tensor(tensor.dtype, tensor.data, tensor.dims);
      return outputTensors(await session.run(feeds));
    },
    decodeOutputs: createDecoder(spec.manifest),
    // One frame at a time in this worker: one input buffer, reused.
    buffers: reusedFloatBuffers(),
  };
  const warmupStarted = performance.now();
  await warmUpFramePath(path);
  loaded = { session, spec, path };
  scope.postMessage({
    type: 'loaded',
    model: spec.name,
    backend,
    threads,
    crossOriginIsolated: isolated,
    ...(webGpuNote && request.allowWebGpu ? { webGpuNote } : {}),
    file: file.info,
    sessionMs,
    warmupMs: performance.now() - warmupStarted,
  });
}

/**
 * As the gateway's sessions: every graph optimisation, and the pool threads stop spinning when a run
 * returns, so between frames the cores go back to the page (video, overlay) instead of a busy wait.
 */
function sessionOptions(backend: InferenceBackend): InferenceSession.SessionOptions {
  return {
    executionProviders: [backend],
    graphOptimizationLevel: 'all',
    extra: { session: { force_spinning_stop: '1' } },
  };
}

/** onnxruntime-web's outputs are what the shared decoders read: type, data, dims. */
function outputTensors(outputs: InferenceSession.OnnxValueMapType): Record<string, OutputTensor> {
  return outputs as unknown as Record<string, OutputTensor>;
}

function context2d(width: number, height: number): OffscreenCanvasRenderingContext2D {
  if (!canvas) {
    canvas = new OffscreenCanvas(width, height);
    context = canvas.getContext('2d', { alpha: false, willReadFrequently: true });
  }
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  if (!context) throw new Error('no 2D context on OffscreenCanvas in this browser');
  return context;
}

/** The browser's image decoding for the shared frame path: no colour management (the gateway's decoders apply none either). */
async function decodeInBrowser(image: Uint8Array, input: ModelInput): Promise<DecodedFrame> {
  const bitmap = await createImageBitmap(new Blob([image as Uint8Array<ArrayBuffer>]), {
    colorSpaceConversion: 'none',
    premultiplyAlpha: 'none',
    imageOrientation: 'from-image',
  });
  const { width, height } = bitmap;
  const placement = letterboxPlacement(width, height, input);
  const size = readbackSize({ width, height }, placement);
  const ctx = context2d(size.width, size.height);
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(bitmap, 0, 0, size.width, size.height);
  bitmap.close();
  const rgba = ctx.getImageData(0, 0, size.width, size.height).data;
  const rgb = rgbaToRgb(rgba, size.width, size.height, rgbBuffer);
  rgbBuffer = rgb.data;
  return { rgb, width, height, placement, decoder: 'browser' };
}

async function detect(request: DetectRequest): Promise<void> {
  const current = loaded;
  if (!current) {
    scope.postMessage({ type: 'failed', id: request.id, message: 'no model is loaded on this device yet' });
    return;
  }
  const result = await runFrame(current.path, new Uint8Array(request.image), request.threshold);
  scope.postMessage({
    type: 'result',
    id: request.id,
    model: current.spec.name,
    width: result.width,
    height: result.height,
    detections: result.detections,
    timings: result.stages,
  });
}

scope.onmessage = (event) => {
  const request = event.data;
  queue = queue.then(async () => {
    try {
      if (request.type === 'load') await load(request);
      else await detect(request);
    } catch (error) {
      if (request.type === 'load') scope.postMessage({ type: 'load_failed', model: request.model.name, message: message(error) });
      else scope.postMessage({ type: 'failed', id: request.id, message: message(error) });
    }
  });
};
