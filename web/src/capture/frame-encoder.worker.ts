/**
 * Frame encoder worker: scales a transferred VideoFrame or ImageBitmap to the requested size on an
 * OffscreenCanvas and JPEG-encodes it with convertToBlob, off the main thread.
 */
import type { EncodeRequest, EncodeResponse } from './encoder-protocol.ts';
import { answerRequests, OffscreenScaler } from './encoding-worker.ts';

const scaler = new OffscreenScaler();

async function encode(request: EncodeRequest): Promise<EncodeResponse> {
  const { id, source, width, height, quality } = request;
  try {
    const blob = await scaler.draw(source, width, height).convertToBlob({ type: 'image/jpeg', quality });
    return { id, ok: true, bytes: await blob.arrayBuffer(), width, height };
  } catch (error) {
    return { id, ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    source.close();
  }
}

answerRequests(encode, (response) => (response.ok ? [response.bytes] : []));
