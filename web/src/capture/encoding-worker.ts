/**
 * The worker side of worker-jobs.ts, shared by the JPEG encoder worker (frame-encoder.worker.ts) and the video
 * encoder worker (video/video-encoder.worker.ts): each request answered in turn, and the transferred picture
 * scaled to the size asked for on the worker's one OffscreenCanvas.
 */

interface WorkerScope<Request, Response> {
  onmessage: ((event: MessageEvent<Request>) => void) | null;
  postMessage(message: Response, transfer?: Transferable[]): void;
}

/** Answers each request with what `handle` makes of it, the buffers `transfer` names transferred. */
export function answerRequests<Request, Response>(
  handle: (request: Request) => Promise<Response>,
  transfer: (response: Response) => Transferable[],
): void {
  const scope = self as unknown as WorkerScope<Request, Response>;
  scope.onmessage = (event) => {
    void handle(event.data).then((response) => {
      scope.postMessage(response, transfer(response));
    });
  };
}

/** Pictures drawn at the size asked for on one OffscreenCanvas, kept between requests. */
export class OffscreenScaler {
  private canvas: OffscreenCanvas | undefined;
  private context: OffscreenCanvasRenderingContext2D | null = null;

  draw(source: CanvasImageSource, width: number, height: number): OffscreenCanvas {
    if (!this.canvas) {
      this.canvas = new OffscreenCanvas(width, height);
      this.context = this.canvas.getContext('2d', { alpha: false });
    }
    const { canvas, context } = this;
    if (canvas.width !== width) canvas.width = width;
    if (canvas.height !== height) canvas.height = height;
    if (!context) throw new Error('2D context unavailable on OffscreenCanvas');
    context.imageSmoothingQuality = 'medium';
    context.drawImage(source, 0, 0, width, height);
    return canvas;
  }
}
