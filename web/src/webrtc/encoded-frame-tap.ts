/**
 * Watches the encoded frames a video sender sends, to learn each one's RTP timestamp (what the gateway's
 * detections name) and when it went: the standard RTCRtpScriptTransform in a worker (rtp-tap.worker.ts) where
 * the browser has it, else Chromium's older `createEncodedStreams()` on the main thread (which needs the peer
 * connection made with `encodedInsertableStreams: true`). Frames pass untouched either way.
 */
import type { EncodedFrameReport } from './rtp-tap-protocol.ts';

export type EncodedFrameListener = (report: EncodedFrameReport) => void;

/** Which way this browser can tap a sender: decides the peer connection's configuration before it is made. */
export function tapKind(): 'script-transform' | 'encoded-streams' | 'none' {
  if (typeof RTCRtpScriptTransform === 'function') return 'script-transform';
  if (typeof RTCRtpSender !== 'undefined' && 'createEncodedStreams' in RTCRtpSender.prototype) return 'encoded-streams';
  return 'none';
}

interface LegacyEncodedStreams {
  createEncodedStreams(): { readable: ReadableStream<RTCEncodedVideoFrame>; writable: WritableStream<RTCEncodedVideoFrame> };
}

/** Taps `sender`; returns what stops it. Without any way to tap, nothing is reported (detections then cannot be matched). */
export function tapEncodedFrames(sender: RTCRtpSender, listener: EncodedFrameListener): () => void {
  const kind = tapKind();
  if (kind === 'script-transform') {
    const worker = new Worker(new URL('./rtp-tap.worker.ts', import.meta.url), { type: 'module', name: 'rtp-tap' });
    const { port1, port2 } = new MessageChannel();
    port1.onmessage = (event: MessageEvent<EncodedFrameReport>) => listener(event.data);
    sender.transform = new RTCRtpScriptTransform(worker, { port: port2 }, [port2]);
    return () => {
      port1.close();
      worker.terminate();
    };
  }
  if (kind === 'encoded-streams') {
    const { readable, writable } = (sender as unknown as LegacyEncodedStreams).createEncodedStreams();
    let stopped = false;
    void readable
      .pipeThrough(
        new TransformStream<RTCEncodedVideoFrame, RTCEncodedVideoFrame>({
          transform(frame, controller) {
            controller.enqueue(frame);
            if (stopped) return;
            listener({
              rtpTimestamp: frame.getMetadata().rtpTimestamp ?? frame.timestamp,
              atEpochMs: performance.timeOrigin + performance.now(),
              bytes: frame.data.byteLength,
              key: frame.type === 'key',
            });
          },
        }),
      )
      .pipeTo(writable)
      .catch(() => undefined);
    return () => {
      stopped = true;
    };
  }
  return () => undefined;
}
