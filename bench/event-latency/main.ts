/**
 * `pnpm bench:event-latency [--crossings 100] [--write]`: how long after the reply to the frame that triggered it an
 * event reaches an MQTT subscriber, end to end through real processes: a gateway (`pnpm start`'s, with
 * SIGHTLINE_MQTT_URL), Debian's mosquitto, and one Node process that is both the camera (a WebSocket client
 * streaming a cat photo sliding back and forth across a picture, stop-and-wait, a 25 fps timeline) and the
 * subscriber, so both times are read on one clock. The camera's rule is a vertical line in the middle: each leg
 * of the slide is one crossing. An event names its frame by `capturedAt` (the frame's `ts`).
 */
import { Command } from 'commander';
import mqtt from 'mqtt';
import sharp from 'sharp';
import type { CameraRules, StoredEvent } from '@sightline/shared/events';
import { readPhoto } from '@sightline/shared/fixtures';
import { cameraRulesPath } from '@sightline/shared/protocol';
import { percentile } from '@sightline/shared/stats';
import { WireClient } from '@sightline/harness/client';
import { GatewayProcess, Mosquitto } from '@sightline/harness/process';
import { figuresSection, fmt, publishSection } from '../report.ts';

const program = new Command('bench:event-latency')
  .description('Latency from the reply to a frame to its event at an MQTT subscriber (real gateway, real mosquitto).')
  .option('--crossings <n>', 'line crossings to measure (each a leg of the slide)', '100')
  .option('--frames-per-leg <n>', 'frames from one side of the picture to the other', '24')
  .option('--write', 'replace the section in docs/runs/event-latency.md')
  .parse();
const options = program.opts<{ crossings: string; framesPerLeg: string; write?: boolean }>();
const crossings = Number(options.crossings);
const framesPerLeg = Number(options.framesPerLeg);
if (!(Number.isInteger(crossings) && crossings > 0)) program.error('--crossings must be a positive integer');
if (!(Number.isInteger(framesPerLeg) && framesPerLeg >= 8)) program.error('--frames-per-leg must be an integer >= 8');

const WIDTH = 640;
const HEIGHT = 480;
const CAMERA = 'bench';
const FRAME_MS = 40;
const RULES: CameraRules = { lines: [{ name: 'middle', from: [0.5, 0], to: [0.5, 1], labels: ['cat'] }], zones: [] };

/** One leg: the cat's centre from 15% to 85% of the width; the way back is the same frames in reverse. */
async function leg(count: number): Promise<Buffer[]> {
  const cat = await sharp(readPhoto('chelsea.jpg')).resize({ width: 240 }).toBuffer({ resolveWithObject: true });
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const centre = (0.15 + (0.7 * i) / (count - 1)) * WIDTH;
    const left = Math.round(Math.min(WIDTH - cat.info.width, Math.max(0, centre - cat.info.width / 2)));
    frames.push(
      await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: { r: 128, g: 128, b: 128 } } })
        .composite([{ input: cat.data, left, top: Math.round((HEIGHT - cat.info.height) / 2) }])
        .jpeg({ quality: 90 })
        .toBuffer(),
    );
  }
  return frames;
}

const broker = await Mosquitto.start();
const gateway = await GatewayProcess.create({ env: { SIGHTLINE_MQTT_URL: broker.url, LOG_LEVEL: 'warn' } });
try {
  await gateway.start();
  const base = `http://127.0.0.1:${gateway.port}`;
  const put = await fetch(base + cameraRulesPath(CAMERA), {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(RULES),
  });
  if (!put.ok) throw new Error(`PUT rules: ${put.status} ${await put.text()}`);

  const repliedAt = new Map<number, number>();
  const delays: number[] = [];
  const seen: StoredEvent[] = [];
  const subscriber = await mqtt.connectAsync(broker.url, { clean: true });
  await subscriber.subscribeAsync(`sightline/${CAMERA}/events`, { qos: 1 });
  subscriber.on('message', (_topic, payload) => {
    const at = performance.now();
    const event = JSON.parse(payload.toString()) as StoredEvent;
    seen.push(event);
    const replied = repliedAt.get(event.capturedAt);
    if (replied !== undefined) delays.push(at - replied);
  });

  const forth = await leg(framesPerLeg);
  const back = [...forth].reverse();
  const client = await WireClient.connect(`ws://127.0.0.1:${gateway.port}/ws?camera=${CAMERA}`);
  await client.hello();
  let id = 0;
  for (let crossing = 0; crossing < crossings; crossing++) {
    for (const image of crossing % 2 === 0 ? forth : back) {
      id++;
      const ts = id * FRAME_MS;
      client.send({ type: 'frame', id, ts, image }, 'msgpack');
      const answer = await client.answer(id);
      repliedAt.set(ts, performance.now());
      if (answer.message.type !== 'detections') throw new Error(`frame ${id}: ${JSON.stringify(answer.message)}`);
    }
  }
  client.close();
  // Whatever is still on its way: a generous bound, only for a broken run.
  const deadline = Date.now() + 10_000;
  while (seen.length < crossings && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  await subscriber.endAsync();

  const sorted = [...delays].sort((a, b) => a - b);
  const directions = { in: seen.filter((e) => e.direction === 'in').length, out: seen.filter((e) => e.direction === 'out').length };
  const rows = [
    ['crossings streamed', String(crossings)],
    ['events received', `${seen.length} (in ${directions.in}, out ${directions.out})`],
    ['reply -> event at the subscriber, p50', `${fmt(percentile(sorted, 50), 1)} ms`],
    ['p95', `${fmt(percentile(sorted, 95), 1)} ms`],
    ['max', `${fmt(sorted.at(-1) ?? Number.NaN, 1)} ms`],
    ['goal (p95)', '<= 50 ms'],
  ];
  const section = figuresSection(
    'Events: from the reply to the MQTT subscriber',
    `pnpm bench:event-latency --crossings ${crossings}`,
    'pnpm start (one gateway), Debian mosquitto on loopback, QoS 1',
    rows,
  );
  console.log(section);
  if (options.write) publishSection('event-latency', section);
} finally {
  await gateway.stop();
  await broker.dispose();
}
