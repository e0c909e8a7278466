/**
 * Frame encoder worker: scales a transferred VideoFrame or ImageBitmap to the requested size on an
 * OffscreenCanvas and JPEG-encodes it with convertToBlob, off the main thread.
 */
import type { EncodeRequest, EncodeResponse } from './encoder-protocol.ts';

interface WorkerScope {
  onmessage: ((event: MessageEvent<EncodeRequest>) => void) | null;
  postMessage(message: EncodeResponse, transfer?: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;
let canvas: OffscreenCanvas | undefined;
let context: OffscreenCanvasRenderingContext2D | null = null;

async function encode(request: EncodeRequest): Promise<EncodeResponse> {
  const { id, source, width, height, quality } = request;
  try {
    if (!canvas) {
      canvas = new OffscreenCanvas(width, height);
      context = canvas.getContext('2d', { alpha: false });
    }
    if (canvas.width !== width) canvas.width = width;
    if (canvas.height !== height) canvas.height = height;
    if (!context) throw new Error('2D context unavailable on OffscreenCanvas');
    context.imageSmoothingQuality = 'medium';
    context.drawImage(source, 0, 0, width, height);
    const blob = await canvas.convertToBlob({ type: 'image/jpeg', quality });
    return { id, ok: true, bytes: await blob.arrayBuffer(), width, height };
  } catch (error) {
    return { id, ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    source.close();
  }
}

scope.onmessage = (event) => {
  void encode(event.data).then((response) => {
    scope.postMessage(response, response.ok ? [response.bytes] : []);
  });
};
