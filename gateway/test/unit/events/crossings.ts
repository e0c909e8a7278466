/**
 * Synthetic tracked frames for the events tests: one person at a time walking across a vertical counting line,
 * fed to a TapConsumer as the detections tap would, each crossing making exactly one `line_cross` event.
 *
 * The line runs from (0.5, 0) to (0.5, 1): side(p) = sign(0.5 - p.x), so walking right (left to right) is `out`
 * and walking left is `in`.
 */
import type { CameraRules, Direction } from '@sightline/shared/events';
import type { TapConsumer, TappedFrame } from '../../../src/frames/detections-tap.ts';

export const DOOR: CameraRules = { lines: [{ name: 'door', from: [0.5, 0], to: [0.5, 1] }], zones: [] };

const WIDTH = 640;
const HEIGHT = 480;
/** Anchor positions (x, normalised) of one walk, left to right: well clear of the line on both sides. */
const WALK = [0.2, 0.27, 0.34, 0.41, 0.48, 0.55, 0.62, 0.69, 0.76, 0.83];
const FRAME_MS = 40;

export class CrossingFeed {
  private ts = 1_000;
  private nextTrack = 1;

  private readonly consumer: TapConsumer;
  readonly camera: string;
  readonly stream: number;
  private readonly label: string;

  constructor(consumer: TapConsumer, camera: string, stream: number, label = 'person') {
    this.consumer = consumer;
    this.camera = camera;
    this.stream = stream;
    this.label = label;
  }

  /** One new track crossing the line (`out`: left to right); returns the direction its event has. */
  cross(direction: Direction = 'out'): Direction {
    const trackId = this.nextTrack++;
    const xs = direction === 'out' ? WALK : [...WALK].reverse();
    for (const x of xs) this.consumer.frame(this.frame(trackId, x));
    // A few empty frames: the next person comes once this one has gone.
    for (let i = 0; i < 3; i += 1) this.consumer.frame(this.frame(undefined, 0));
    return direction;
  }

  /** `count` crossings, alternating out and in; returns their directions in order. */
  crossMany(count: number): Direction[] {
    return Array.from({ length: count }, (_, i) => this.cross(i % 2 === 0 ? 'out' : 'in'));
  }

  end(): void {
    this.consumer.streamEnded(this.camera, this.stream);
  }

  private frame(trackId: number | undefined, x: number): TappedFrame {
    this.ts += FRAME_MS;
    const cx = x * WIDTH;
    const bottom = 0.8 * HEIGHT;
    return {
      camera: this.camera,
      stream: this.stream,
      model: 'test',
      capturedAt: this.ts,
      detectedAt: Date.now(),
      width: WIDTH,
      height: HEIGHT,
      detections:
        trackId === undefined
          ? []
          : [
              {
                label: this.label,
                classId: 0,
                score: 0.9,
                box: [cx - 30, bottom - 150, cx + 30, bottom] as [number, number, number, number],
                trackId,
              },
            ],
    };
  }
}
