/**
 * Video encoder worker: one WebCodecs VideoEncoder, (re)configured when the codec, size or bitrate changes.
 * Each transferred picture is scaled to the stream's size on an OffscreenCanvas, wrapped as a VideoFrame with
 * the page's timestamp, encoded and flushed, so every request is answered with its own chunk (or none, when a
 * realtime encoder drops the frame): the stream loop encodes the next picture only when this one is sent.
 */
import { answerRequests, OffscreenScaler } from '../capture/encoding-worker.ts';
import { videoEncoderConfig } from './video-encoder-config.ts';
import type { VideoEncodeRequest, VideoEncodeResponse } from './video-encoder-protocol.ts';

let encoder: VideoEncoder | undefined;
let configuredFor = '';
let outputs: EncodedVideoChunk[] = [];
let failure: Error | undefined;
const scaler = new OffscreenScaler();

function ensureEncoder(request: VideoEncodeRequest): boolean {
  const key = `${request.codec}|${request.width}x${request.height}|${request.bitrateKbps}`;
  if (encoder && encoder.state === 'configured' && configuredFor === key) return false;
  if (encoder && encoder.state !== 'closed') encoder.close();
  failure = undefined;
  outputs = [];
  encoder = new VideoEncoder({
    output: (chunk) => outputs.push(chunk),
    error: (error) => {
      failure = error instanceof Error ? error : new Error(String(error));
    },
  });
  encoder.configure(videoEncoderConfig(request.codec, request, request.bitrateKbps));
  configuredFor = key;
  return true;
}

function scaled(request: VideoEncodeRequest): VideoFrame {
  const { width, height, source } = request;
  return new VideoFrame(scaler.draw(source, width, height), { timestamp: request.timestampUs });
}

async function encode(request: VideoEncodeRequest): Promise<VideoEncodeResponse> {
  const { id } = request;
  try {
    const configured = ensureEncoder(request);
    const active = encoder!;
    const frame = scaled(request);
    try {
      active.encode(frame, { keyFrame: request.keyFrame || configured });
    } finally {
      frame.close();
    }
    await active.flush();
    if (failure) throw failure;
    const chunk = outputs.at(-1);
    outputs = [];
    if (!chunk) return { id, ok: true, data: null, key: false };
    const data = new ArrayBuffer(chunk.byteLength);
    chunk.copyTo(data);
    return { id, ok: true, data, key: chunk.type === 'key' };
  } catch (error) {
    // A failed encoder is closed; the next request configures a new one (and starts with a keyframe).
    configuredFor = '';
    return { id, ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    request.source.close();
  }
}

// One request at a time, in order: the page sends the next only after this one's answer.
answerRequests(encode, (response) => (response.ok && response.data ? [response.data] : []));
