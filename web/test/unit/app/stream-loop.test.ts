import { describe, expect, it } from 'vitest';
import { RejectionBackoff } from '../../../src/app/rejection-backoff.ts';
import { StreamLoop, ENCODE_RETRY_MS, type LoopSettings, type LoopSource } from '../../../src/app/stream-loop.ts';
import type { EncodedFrame, FrameSourceElement } from '../../../src/capture/frame-encoder.ts';
import type { FrameSize, ModelInput } from '../../../src/capture/frame-size.ts';
import { Signal } from '../../../src/events/signal.ts';
import { FrameSender, type PendingFrame } from '../../../src/transport/frame-sender.ts';
import type { VideoEncodeOptions } from '../../../src/video/video-stream-encoder.ts';
import { FakeClock } from '../../support/fake-clock.ts';
import { deviceFrame, errorOutcome } from '../../support/outcomes.ts';

/** A camera or file that presents frames when told to. */
class FakeSource implements LoopSource {
  element: FrameSourceElement | undefined = { currentSrc: 'blob:picture-1' } as FrameSourceElement;
  isStill = false;
  frameToken = 1;
  /** Capture time of the frame on show (page clock); frames named by timestamp in `captured`. */
  shownAt = 500;
  readonly captured = new Map<number, number>();
  private readyWaiters: (() => void)[] = [];
  private frameWaiters: (() => void)[] = [];

  readyElement(): FrameSourceElement | undefined {
    return this.element;
  }
  onReady(callback: () => void): void {
    if (!this.readyWaiters.includes(callback)) this.readyWaiters.push(callback);
  }
  onNextFrame(callback: () => void): void {
    if (!this.frameWaiters.includes(callback)) this.frameWaiters.push(callback);
  }
  pictureTime(): number {
    return this.shownAt;
  }
  captureTimeOf(timestampUs: number): number | undefined {
    return this.captured.get(timestampUs);
  }
  /** The video presents `count` new frames. */
  present(count = 1): void {
    this.frameToken += count;
    const waiters = this.frameWaiters;
    this.frameWaiters = [];
    for (const waiter of waiters) waiter();
  }
  /** A picture is there again (loaded, caught up after a seek). */
  showPicture(): void {
    this.element = { currentSrc: 'blob:picture-1' } as FrameSourceElement;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const waiter of waiters) waiter();
  }
}

interface EncodeCall {
  frameSize: FrameSize;
  quality: number;
  input: ModelInput | undefined;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** An encoder that finishes only when told to. */
class FakeEncoder {
  readonly calls: EncodeCall[] = [];
  /** The timestamp of the VideoFrame the next encode grabs (undefined: not grabbed as one). */
  timestampUs: number | undefined;
  encode(_element: FrameSourceElement, frameSize: FrameSize, quality: number, input?: ModelInput): Promise<EncodedFrame> {
    return new Promise((resolve, reject) => {
      const frame: EncodedFrame = {
        bytes: new Uint8Array(this.calls.length + 1),
        width: 320,
        height: 240,
        encodeMs: 3,
        path: 'worker',
        timestampUs: this.timestampUs,
      };
      this.calls.push({ frameSize, quality, input, resolve: () => resolve(frame), reject });
    });
  }
  /** Finishes the latest encode. */
  finish(): void {
    this.calls[this.calls.length - 1]!.resolve();
  }
}

const ssd: ModelInput = { width: 300, height: 300, resize: 'stretch' };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function setup(options: { maxInFlight?: number; still?: boolean } = {}) {
  const clock = new FakeClock();
  const source = new FakeSource();
  source.isStill = options.still ?? false;
  const encoder = new FakeEncoder();
  const link = { isOpen: true };
  let id = 0;
  const sent: PendingFrame[] = [];
  const sender = new FrameSender({
    send: () => link.isOpen,
    nextId: () => ++id,
    now: () => clock.now(),
    maxInFlight: options.maxInFlight ?? 1,
  });
  const settings: LoopSettings = { paused: false, frameSize: 'auto', jpegQuality: 0.8, model: 'ssd', threshold: 0.5 };
  const backoff = new RejectionBackoff(clock);
  /** What the loop subscribes to besides the backoff: a stand-in for the routes' and the settings' changes. */
  const changed = new Signal<void>();
  const errors: string[] = [];
  const loop = new StreamLoop({
    source,
    encoder,
    sender: {
      canSend: () => sender.canSend(),
      sendFrame: (image, frameOptions) => {
        const frame = sender.sendFrame(image, frameOptions);
        if (frame) sent.push(frame);
        return frame;
      },
    },
    link,
    clock,
    settings: () => settings,
    modelInput: () => ssd,
    holdMs: () => backoff.waitMs(),
    wakeOn: [changed, backoff.changed],
  });
  loop.encodeFailed.subscribe((message) => errors.push(message));
  /** The gateway answers the oldest unanswered frame; the loop is pumped as the controller does. */
  const answer = (): void => {
    const frame = sent.find((pending) => sender.isPending(pending.id))!;
    sender.handleAnswer({ type: 'dropped', id: frame.id, reason: 'superseded' }, 10);
    loop.pump();
  };
  /** The gateway refuses a frame: the backoff holds the next one. */
  const reject = (): void => backoff.track(errorOutcome(deviceFrame(0, 0), clock.now()));
  /** The gateway refuses the oldest unanswered frame, `overloaded`, saying when to send again; wired as the controller wires it. */
  const refuse = (retryAfterMs: number): void => {
    const frame = sent.find((pending) => sender.isPending(pending.id))!;
    const outcome = sender.handleAnswer({ type: 'dropped', id: frame.id, reason: 'overloaded', retryAfterMs }, 10)!;
    backoff.track(outcome);
    loop.pump();
  };
  return { clock, source, encoder, link, sender, sent, settings, loop, errors, answer, changed, reject, refuse };
}

describe('StreamLoop', () => {
  it('encodes with the settings and the model input, and sends once the encode is done', async () => {
    const h = setup();
    h.loop.start();
    h.loop.pump();
    expect(h.encoder.calls.map(({ frameSize, quality, input }) => ({ frameSize, quality, input }))).toEqual([
      { frameSize: 'auto', quality: 0.8, input: ssd },
    ]);
    expect(h.sent).toHaveLength(0);
    h.encoder.finish();
    await settle();
    expect(h.sent).toMatchObject([{ model: 'ssd', threshold: 0.5, skippedBefore: 0 }]);
    expect(h.loop.lastEncode).toEqual({ width: 320, height: 240, bytes: 1, encodeMs: 3 });
  });

  it('waits for the socket, a free slot and a picture before encoding', async () => {
    const h = setup();
    h.loop.start();
    h.link.isOpen = false;
    h.loop.pump();
    expect(h.encoder.calls).toHaveLength(0);
    h.link.isOpen = true;
    h.source.element = undefined; // a file seeking back to its start
    h.loop.pump();
    expect(h.encoder.calls).toHaveLength(0);
    h.source.showPicture();
    expect(h.encoder.calls).toHaveLength(1);
    h.encoder.finish();
    await settle();
    h.source.present();
    h.loop.pump(); // stop-and-wait: the slot is taken until the answer
    expect(h.encoder.calls).toHaveLength(1);
  });

  it('never sends the same video frame twice: it waits for the next one', async () => {
    const h = setup();
    h.loop.start();
    h.loop.pump();
    h.encoder.finish();
    await settle();
    h.answer(); // the slot is free again, but the video has shown nothing new
    expect(h.encoder.calls).toHaveLength(1);
    h.source.present();
    expect(h.encoder.calls).toHaveLength(2);
  });

  it('counts the video frames that went by while the answer was awaited', async () => {
    const h = setup();
    h.loop.start();
    h.loop.pump();
    h.encoder.finish();
    await settle();
    h.source.frameToken += 4; // frames 2..5 presented meanwhile; 5 is the newest
    h.answer();
    h.encoder.finish();
    await settle();
    expect(h.sent.map((frame) => frame.skippedBefore)).toEqual([0, 3]);
  });

  it('runs one encode at a time, even with room for more frames', async () => {
    const h = setup({ maxInFlight: 4 });
    h.loop.start();
    h.loop.pump();
    h.source.present();
    h.loop.pump();
    expect(h.encoder.calls).toHaveLength(1);
    h.encoder.finish();
    await settle();
    // Sent, then at once on to the newest frame.
    expect(h.encoder.calls).toHaveLength(2);
  });

  it('sends each frame with the capture time of the picture it took, named exactly by the grabbed frame when it can be', async () => {
    const h = setup({ maxInFlight: 3 });
    h.loop.start();
    // The encoder grabbed no VideoFrame: the frame on show when the loop took the picture.
    h.source.shownAt = 1000;
    h.loop.pump();
    h.source.shownAt = 1066; // presented while encoding: not the picture taken
    h.encoder.finish();
    await settle();
    expect(h.sent.map((frame) => frame.capturedAt)).toEqual([1000]);
    // The grabbed VideoFrame's timestamp names a recently presented frame: its own capture time.
    h.source.captured.set(2_000_000, 1040);
    h.encoder.timestampUs = 2_000_000;
    h.source.present(); // the loop takes this picture at once
    h.encoder.finish();
    await settle();
    // A timestamp the source never presented (yet): the frame on show when the picture was taken.
    h.encoder.timestampUs = 3_000_000;
    h.source.shownAt = 1130;
    h.source.present();
    h.source.shownAt = 1200;
    h.encoder.finish();
    await settle();
    expect(h.sent.map((frame) => frame.capturedAt)).toEqual([1000, 1040, 1130]);
  });

  it('holds the next frame while the rejection backoff says so, then goes on by itself', async () => {
    const h = setup();
    h.loop.start();
    h.reject();
    h.reject();
    h.loop.pump();
    await settle();
    expect(h.encoder.calls).toHaveLength(0);
    h.clock.advance(199);
    await settle();
    expect(h.encoder.calls).toHaveLength(0);
    h.clock.advance(1);
    await settle();
    expect(h.encoder.calls).toHaveLength(1);
  });

  it("sends nothing before a refusal's retryAfterMs has passed, then the next frame at once", async () => {
    const h = setup();
    h.loop.start();
    h.loop.pump();
    h.encoder.finish();
    await settle();
    expect(h.sent).toHaveLength(1);
    h.source.present();
    h.refuse(250);
    await settle();
    expect(h.encoder.calls).toHaveLength(1);
    h.clock.advance(249);
    await settle();
    expect(h.encoder.calls).toHaveLength(1);
    h.clock.advance(1);
    await settle();
    expect(h.encoder.calls).toHaveLength(2);
  });

  it('pumps by itself when what it subscribes to changes, once for changes that come together, never after stop', async () => {
    const h = setup();
    h.link.isOpen = false;
    h.loop.start();
    h.loop.pump();
    h.link.isOpen = true;
    expect(h.encoder.calls).toHaveLength(0);
    // Published in the middle of a change: the pump waits for the task's own work to end.
    h.changed.emit();
    h.changed.emit();
    expect(h.encoder.calls).toHaveLength(0);
    await Promise.resolve();
    expect(h.encoder.calls).toHaveLength(1);
    h.encoder.finish();
    await settle();
    h.sender.handleAnswer({ type: 'dropped', id: h.sent[0]!.id, reason: 'superseded' }, 10);
    h.source.frameToken++;
    h.loop.stop();
    h.changed.emit();
    await settle();
    expect(h.encoder.calls).toHaveLength(1);
  });

  it('reports a failed encode, tries again after a pause, and counts the failed frame as skipped', async () => {
    const h = setup();
    h.loop.start();
    h.loop.pump();
    h.encoder.calls[0]!.reject(new Error('the encoder worker did not answer'));
    await settle();
    expect(h.errors).toEqual(['Could not encode a frame: the encoder worker did not answer']);
    h.source.frameToken++; // frame 2 is there meanwhile
    h.clock.advance(ENCODE_RETRY_MS - 1);
    expect(h.encoder.calls).toHaveLength(1);
    h.clock.advance(1);
    expect(h.encoder.calls).toHaveLength(2);
    h.encoder.finish();
    await settle();
    expect(h.sent.map((frame) => frame.skippedBefore)).toEqual([1]); // frame 1, never sent
  });

  it('encodes a still image once per picture and settings, and re-sends it from the cache', async () => {
    const h = setup({ still: true });
    h.loop.start();
    h.loop.pump();
    h.encoder.finish();
    await settle();
    h.answer();
    h.answer();
    expect(h.sent).toHaveLength(3);
    expect(h.encoder.calls).toHaveLength(1);
    h.settings.jpegQuality = 0.5; // another picture on the wire
    h.answer();
    expect(h.encoder.calls).toHaveLength(2);
    h.encoder.finish();
    await settle();
    h.answer();
    expect(h.encoder.calls).toHaveLength(2);
    h.loop.forgetStill(); // a new file, or another model
    h.answer();
    expect(h.encoder.calls).toHaveLength(3);
  });

  it('does not send a frame whose encode ended after a pause or a disconnect', async () => {
    const h = setup();
    h.loop.start();
    h.loop.pump();
    h.settings.paused = true;
    h.encoder.finish();
    await settle();
    expect(h.sent).toHaveLength(0);
    h.settings.paused = false;
    h.source.present();
    h.loop.pump();
    h.link.isOpen = false;
    h.encoder.finish();
    await settle();
    expect(h.sent).toHaveLength(0);
  });

  it('sends nothing after stop and drops a pending retry', async () => {
    const h = setup();
    h.loop.start();
    h.loop.pump();
    h.encoder.calls[0]!.reject(new Error('the encoder worker did not answer'));
    await settle();
    expect(h.clock.timerCount).toBe(1);
    h.loop.stop();
    expect(h.clock.timerCount).toBe(0);
    h.clock.advance(ENCODE_RETRY_MS);
    h.loop.pump();
    expect(h.encoder.calls).toHaveLength(1);
  });
});

describe('StreamLoop with a video codec', () => {
  interface VideoCall {
    keyFrame: boolean;
    codec: string;
    bitrateKbps: number;
    resolve: (frame: EncodedFrame | undefined) => void;
  }

  /** The video stream encoder, finishing only when told to: with a chunk, or nothing (the encoder dropped the frame). */
  class FakeVideoEncoder {
    readonly calls: VideoCall[] = [];
    private seq = 0;
    encode(
      _element: FrameSourceElement,
      _frameSize: FrameSize,
      _quality: number,
      _input: ModelInput | undefined,
      video: VideoEncodeOptions,
    ): Promise<EncodedFrame | undefined> {
      return new Promise((resolve) => this.calls.push({ ...video, resolve }));
    }
    chunk(): void {
      const call = this.calls.at(-1)!;
      call.resolve({
        bytes: new Uint8Array(4),
        width: 400,
        height: 300,
        encodeMs: 2,
        path: 'worker',
        video: { codec: call.codec as 'vp8', key: call.keyFrame, seq: ++this.seq },
      });
    }
    drop(): void {
      this.calls.at(-1)!.resolve(undefined);
    }
  }

  function videoSetup() {
    const clock = new FakeClock();
    const source = new FakeSource();
    const jpeg = new FakeEncoder();
    const video = new FakeVideoEncoder();
    let id = 0;
    const sent: PendingFrame[] = [];
    const sender = new FrameSender({ send: () => true, nextId: () => ++id, now: () => clock.now() });
    sender.setPolicy({ codec: 'vp8', abMode: false, abEvery: 30 });
    const settings: LoopSettings = { paused: false, frameSize: 'auto', jpegQuality: 0.8, model: 'ssd', threshold: 0.5, videoBitrate: 250 };
    const loop = new StreamLoop({
      source,
      encoder: jpeg,
      videoEncoder: video,
      sender: {
        canSend: () => sender.canSend(),
        nextFormat: () => sender.nextFormat(),
        sendFrame: (image, frameOptions) => {
          const frame = sender.sendFrame(image, frameOptions);
          if (frame) sent.push(frame);
          return frame;
        },
      },
      link: { isOpen: true },
      clock,
      settings: () => settings,
      modelInput: () => ssd,
      holdMs: () => 0,
      wakeOn: [],
    });
    const answer = (): void => {
      const frame = sent.find((pending) => sender.isPending(pending.id))!;
      sender.handleAnswer({ type: 'dropped', id: frame.id, reason: 'superseded' }, 10);
      loop.pump();
    };
    return { source, jpeg, video, sender, sent, loop, answer };
  }

  it('encodes the pictures as the route asks: a keyframe first, then deltas, at the bitrate; sent as chunks', async () => {
    const h = videoSetup();
    h.loop.start();
    h.loop.pump();
    expect(h.jpeg.calls).toHaveLength(0);
    expect(h.video.calls.map(({ keyFrame, codec, bitrateKbps }) => ({ keyFrame, codec, bitrateKbps }))).toEqual([
      { keyFrame: true, codec: 'vp8', bitrateKbps: 250 },
    ]);
    h.video.chunk();
    await settle();
    expect(h.sent).toMatchObject([{ codec: 'vp8' }]);
    h.source.present();
    h.answer();
    expect(h.video.calls.at(-1)!.keyFrame).toBe(false);
    h.video.chunk();
    await settle();
    expect(h.sent).toHaveLength(2);
  });

  it('skips a frame the encoder dropped and waits for the next picture', async () => {
    const h = videoSetup();
    h.loop.start();
    h.loop.pump();
    h.video.drop();
    await settle();
    expect(h.sent).toHaveLength(0);
    expect(h.video.calls).toHaveLength(1);
    h.source.present();
    expect(h.video.calls).toHaveLength(2);
    expect(h.video.calls[1]!.keyFrame).toBe(true);
    h.video.chunk();
    await settle();
    expect(h.sent.map((frame) => frame.skippedBefore)).toEqual([1]);
  });
});
