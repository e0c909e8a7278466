/**
 * The detection overlay: a canvas laid exactly over the video (or still image), drawn in
 * requestAnimationFrame, never through React state. A video is redrawn for every new frame it presents
 * (requestVideoFrameCallback runs before animation frame callbacks, so the frame on screen is known):
 * its capture time is the moment the tracks are predicted to. A still image is redrawn when an answer
 * changes the tracks. Handles element resizes (ResizeObserver), devicePixelRatio and mirrored views.
 */
import type { PresentedFrame } from '../capture/frame-times.ts';
import type { BoxMode } from '../tracking/box-mode.ts';
import { drawScene } from './draw-boxes.ts';
import { describeDraw, type DrawnFrame } from './draw-log.ts';
import type { MediaSize, ObjectFit } from './overlay-geometry.ts';
import { STALE_AFTER_MS, type OverlayScene } from './overlay-scene.ts';

export interface OverlaySources {
  /** The shown picture's intrinsic size, or undefined while there is none. */
  mediaSize: () => MediaSize | undefined;
  /** The video frame on screen with its capture time; undefined for a still image (drawn for now). */
  frameOnScreen: () => PresentedFrame | undefined;
  /** What to draw over the picture taken at `displayAt` (page clock). */
  scene: (mode: BoxMode, displayAt: number) => OverlayScene | undefined;
  /** Moves whenever the tracks change. */
  version: () => number;
  /** Told what was drawn, frame by frame (the `?debug` hook, overlay/draw-log.ts); unset, nothing is described. */
  onDraw?: (drawn: DrawnFrame) => void;
}

export class OverlayRenderer {
  private mode: BoxMode = 'predicted';
  private mirror = false;
  private fit: ObjectFit = 'contain';
  private dirty = true;
  private frame = 0;
  private drawnToken = -1;
  private drawnVersion = -1;
  private drawnStale = false;
  private receivedAt: number | undefined;
  private observer: ResizeObserver | undefined;
  private cssWidth = 0;
  private cssHeight = 0;
  private readonly context: CanvasRenderingContext2D | null;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly sources: OverlaySources,
  ) {
    this.context = canvas.getContext('2d');
  }

  start(): void {
    const initial = this.canvas.getBoundingClientRect();
    this.cssWidth = initial.width;
    this.cssHeight = initial.height;
    this.observer = new ResizeObserver((entries) => {
      for (const entry of entries) {
        this.cssWidth = entry.contentRect.width;
        this.cssHeight = entry.contentRect.height;
      }
      this.invalidate();
    });
    this.observer.observe(this.canvas);
    window.addEventListener('resize', this.invalidate);
    this.loop();
  }

  stop(): void {
    cancelAnimationFrame(this.frame);
    this.observer?.disconnect();
    window.removeEventListener('resize', this.invalidate);
  }

  setMode(mode: BoxMode): void {
    if (mode !== this.mode) this.dirty = true;
    this.mode = mode;
  }

  setMirror(mirror: boolean): void {
    if (mirror !== this.mirror) this.dirty = true;
    this.mirror = mirror;
  }

  setFit(fit: ObjectFit): void {
    if (fit !== this.fit) this.dirty = true;
    this.fit = fit;
  }

  /** Something about the layout changed (resize, new media size, DPR): redraw on the next frame. */
  readonly invalidate = (): void => {
    this.dirty = true;
  };

  private readonly loop = (): void => {
    this.frame = requestAnimationFrame(this.loop);
    this.syncSize();
    const { sources } = this;
    const onScreen = sources.frameOnScreen();
    const token = onScreen?.token ?? -1;
    const version = sources.version();
    const stale = this.receivedAt !== undefined && performance.now() - this.receivedAt > STALE_AFTER_MS;
    if (token !== this.drawnToken || version !== this.drawnVersion || stale !== this.drawnStale) this.dirty = true;
    if (!this.dirty || !this.context) return;
    this.dirty = false;
    this.drawnToken = token;
    this.drawnVersion = version;
    this.drawnStale = stale;
    const media = sources.mediaSize();
    const displayAt = onScreen?.capturedAt ?? performance.now();
    const scene = media ? sources.scene(this.mode, displayAt) : undefined;
    this.receivedAt = scene?.receivedAt;
    drawScene(
      this.context,
      scene,
      {
        elementWidth: this.cssWidth,
        elementHeight: this.cssHeight,
        mediaWidth: media?.width ?? 0,
        mediaHeight: media?.height ?? 0,
        fit: this.fit,
        mirror: this.mirror,
        devicePixelRatio: window.devicePixelRatio || 1,
      },
      stale ? 0.4 : 1,
    );
    if (sources.onDraw && media) sources.onDraw(describeDraw(this.mode, displayAt, onScreen, scene, media));
  };

  /** Keeps the backing store at CSS size x devicePixelRatio so lines stay crisp (no layout reads per frame). */
  private syncSize(): void {
    const dpr = window.devicePixelRatio || 1;
    const width = Math.max(1, Math.round(this.cssWidth * dpr));
    const height = Math.max(1, Math.round(this.cssHeight * dpr));
    if (this.canvas.width !== width || this.canvas.height !== height) {
      this.canvas.width = width;
      this.canvas.height = height;
      this.dirty = true;
    }
  }
}
