/**
 * The sender's encoded transform (RTCRtpScriptTransform): passes every encoded video frame through untouched
 * and reports its RTP timestamp, when it passed and its size on the MessagePort the page handed over, so
 * the page can map each detection the gateway names by RTP timestamp to the frame's send and capture time.
 */
import type { EncodedFrameReport } from './rtp-tap-protocol.ts';

interface TransformEvent extends Event {
  transformer: {
    readable: ReadableStream<RTCEncodedVideoFrame>;
    writable: WritableStream<RTCEncodedVideoFrame>;
    options: { port: MessagePort };
  };
}

interface TapScope {
  onrtctransform: ((event: TransformEvent) => void) | null;
}

(self as unknown as TapScope).onrtctransform = (event) => {
  const { readable, writable, options } = event.transformer;
  const port = options.port;
  void readable
    .pipeThrough(
      new TransformStream<RTCEncodedVideoFrame, RTCEncodedVideoFrame>({
        transform(frame, controller) {
          const report: EncodedFrameReport = {
            rtpTimestamp: frame.getMetadata().rtpTimestamp ?? frame.timestamp,
            atEpochMs: performance.timeOrigin + performance.now(),
            bytes: frame.data.byteLength,
            key: frame.type === 'key',
          };
          controller.enqueue(frame);
          port.postMessage(report);
        },
      }),
    )
    .pipeTo(writable)
    .catch(() => {
      // The sender was stopped or its track replaced: nothing more to report.
    });
};
