/** Messages between the page and the on-device inference worker (inference.worker.ts). */
import type { FrameStages } from '@sightline/shared/model';
import type { Detection } from '@sightline/shared/protocol';
import type { OnDeviceSpec } from './on-device-model.ts';

/** How the model runs in the browser. */
export type InferenceBackend = 'wasm' | 'webgpu';

export interface LoadRequest {
  type: 'load';
  model: OnDeviceSpec;
  /** WASM intra-op threads (1 without cross-origin isolation). */
  threads: number;
  /** Use WebGPU when the browser offers an adapter (the WebGPU build is only fetched then). */
  allowWebGpu: boolean;
}

export interface DetectRequest {
  type: 'detect';
  id: number;
  /** An encoded JPEG (or PNG/WebP) frame, transferred. */
  image: ArrayBuffer;
  /** Minimum score 0..1. */
  threshold: number;
}

export type WorkerRequest = LoadRequest | DetectRequest;

/** Where the model file came from on this load. */
export type ModelFileSource = 'cache' | 'network';

export interface ModelFileInfo {
  bytes: number;
  source: ModelFileSource;
  /** Fetch (or cache read), ms. */
  fetchMs: number;
  /** SHA-256 check, ms. */
  verifyMs: number;
}

export interface LoadedReply {
  type: 'loaded';
  model: string;
  backend: InferenceBackend;
  threads: number;
  /** The worker was cross-origin isolated (SharedArrayBuffer, WASM threads). */
  crossOriginIsolated: boolean;
  /** Why WebGPU was not used when it was allowed: no navigator.gpu, no adapter, or the session failed on it. */
  webGpuNote?: string;
  file: ModelFileInfo;
  /** Runtime start (WASM compile on first use) and session creation, ms. */
  sessionMs: number;
  /** The first runs (kernel selection, buffers), ms. */
  warmupMs: number;
}

export interface ProgressReply {
  type: 'progress';
  model: string;
  loadedBytes: number;
  totalBytes: number;
}

export interface LoadFailedReply {
  type: 'load_failed';
  model: string;
  message: string;
}

export interface ResultReply {
  type: 'result';
  id: number;
  model: string;
  /** Size of the submitted image. */
  width: number;
  height: number;
  detections: Detection[];
  /**
   * Where the time went inside the worker, ms, under the protocol's stage names (the shared frame
   * function's): decoding (createImageBitmap, pixels read back), the input tensor, onnxruntime-web's run,
   * output decoding with NMS and boxes.
   */
  timings: FrameStages;
}

export interface FailedReply {
  type: 'failed';
  id: number;
  message: string;
}

export type WorkerReply = LoadedReply | ProgressReply | LoadFailedReply | ResultReply | FailedReply;
