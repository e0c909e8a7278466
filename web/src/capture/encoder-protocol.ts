/** Messages between the page and the frame encoder worker. */

export interface EncodeRequest {
  id: number;
  /** Transferred: the worker closes it. */
  source: VideoFrame | ImageBitmap;
  width: number;
  height: number;
  /** 0..1 */
  quality: number;
}

export type EncodeResponse =
  { id: number; ok: true; bytes: ArrayBuffer; width: number; height: number } | { id: number; ok: false; error: string };
