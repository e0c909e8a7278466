/**
 * The loads of memory-under-limit.sh that the benchmark has no script for, each bounded in time and written
 * as a phase result (phase-result.ts) to --out:
 *
 *   warm-up  --url U --out F                      normal frames (640x480 and 1280x720 JPEG, 640x480 PNG, every
 *            [--connections 6 --seconds 30]        model) one at a time over a WebSocket and HTTP, then from
 *                                                 --connections clients at once for --seconds, stop-and-wait
 *   large    --url U --out F --corpus-dir D       the large-image corpus (image-corpus.ts) on --connections at
 *            [--connections 4 --rounds 2           once, each stop-and-wait through every image in its own order;
 *             --frame-cap-mb 128]                  a frame refused `overloaded` is sent again when the answer says
 *   flood    --url U --out F                      --connections WebSockets each send one message of --bytes at
 *            [--connections 64 --bytes 10000000    the same moment, and --http requests a body of as many bytes:
 *             --http 16]                           the receive side's worst case (junk behind JPEG magic: refused)
 *
 * Every message is MessagePack (binary): a 10 MB image as JSON Base64 would pass the message limit.
 */
import { randomFillSync } from 'node:crypto';
import { parseArgs } from 'node:util';
import { WireClient, type Received } from '@sightline/harness/client';
import { encodeMessage } from '@sightline/shared/codec';
import type { Codec, ServerMessage } from '@sightline/shared/protocol';
import { CORPUS, cameraFrame, loadCorpus } from './image-corpus.ts';
import { countInto, writePhaseResult, type PhaseResult } from './phase-result.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    out: { type: 'string' },
    'corpus-dir': { type: 'string' },
    connections: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '30' },
    'frame-cap-mb': { type: 'string', default: '128' },
    bytes: { type: 'string', default: '10000000' },
    http: { type: 'string', default: '16' },
    'timeout-s': { type: 'string', default: '120' },
    'deadline-s': { type: 'string', default: '600' },
    /** The phase's name in the result (default: the command's), for a load run beside another. */
    phase: { type: 'string' },
  },
});
const command = positionals[0];
if (!values.url || !values.out || !['warm-up', 'large', 'flood'].includes(command ?? '')) {
  process.stderr.write('usage: loads.ts warm-up|large|flood --url URL --out FILE [options]; see the comment at the top\n');
  process.exit(2);
}
const url = values.url.replace(/\/$/, '');
const timeoutMs = Number(values['timeout-s']) * 1000;
const deadline = performance.now() + Number(values['deadline-s']) * 1000;
const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function outcomeOf(message: ServerMessage): string {
  if (message.type === 'detections') return 'detections';
  if (message.type === 'dropped') return `dropped ${message.reason}`;
  if (message.type === 'error') return `error ${message.code}`;
  return message.type;
}

function retryAfter(message: ServerMessage): number | undefined {
  const refused =
    (message.type === 'dropped' && message.reason === 'overloaded') || (message.type === 'error' && message.code === 'overloaded');
  if (!refused) return undefined;
  return 'retryAfterMs' in message && message.retryAfterMs !== undefined ? message.retryAfterMs : 100;
}

async function connect(): Promise<WireClient> {
  const client = await WireClient.connect(url, { handshakeTimeoutMs: 30_000 });
  if (!(await client.waitForHello(30_000))) throw new Error(`no hello from ${url} (${client.closeEvent?.code ?? 'no close'})`);
  return client;
}

/** Sends a frame and waits for its answer; `undefined` if none came in time, the close if the connection ended first. */
/** A frame to send: the image, the model it asks for, and the codec (MessagePack unless said). */
interface Frame {
  image: Uint8Array;
  model: string;
  codec?: Codec;
}

async function exchange(
  client: WireClient,
  id: number,
  { image, model, codec = 'msgpack' }: Frame,
): Promise<Received | { close: number } | undefined> {
  client.send({ type: 'frame', id, ts: Date.now(), image, model }, codec);
  const waitMs = Math.max(1000, Math.min(timeoutMs, deadline - performance.now()));
  await client.until(() => client.answersTo(id).length > 0 || client.closeEvent !== undefined, waitMs);
  const answer = client.answersTo(id)[0];
  if (answer) return answer;
  return client.closeEvent ? { close: client.closeEvent.code } : undefined;
}

/**
 * One stop-and-wait frame as a camera sends it: again after an `overloaded` refusal, when the refusal says
 * (at most `attempts` times); counts every answer.
 */
async function sendUntilServed(
  client: WireClient,
  nextId: () => number,
  frame: Frame,
  result: PhaseResult,
  attempts = 50,
): Promise<{ outcome: string; message?: ServerMessage } | undefined> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const answer = await exchange(client, nextId(), frame);
    if (answer === undefined) return undefined;
    if ('close' in answer) return { outcome: `close ${answer.close}` };
    const outcome = outcomeOf(answer.message);
    const wait = retryAfter(answer.message);
    if (wait === undefined || attempt === attempts || performance.now() > deadline) return { outcome, message: answer.message };
    countInto(result.outcomes, `${outcome} (sent again)`);
    await sleep(Math.min(wait, 5000));
  }
  return undefined;
}

function newResult(phase: string): PhaseResult {
  return { phase, sent: 0, unanswered: 0, outcomes: {}, problems: [], notes: [] };
}

/**
 * Normal traffic, until memory has settled at the level normal service keeps: frames one at a time (each
 * model, JPEG and PNG, WebSocket and HTTP), then --connections clients at once for --seconds, half MessagePack,
 * half JSON.
 * A frame alone runs on the first worker with every thread, frames side by side on each worker with a share
 * (docs/ARCHITECTURE.md, step 8), other inference sessions that allocate as they first run; JSON frames grow
 * the main heap. Measured on the image, with no hostile input at all: after a one-at-a-time warm-up, 6 such
 * clients for 20 s added 40-47 MiB of RSS that stayed; after a 3-s burst of them, 28 more; after 20 s more,
 * nothing (the level moved within ~20 MiB over two more minutes of 6 clients and of overload). Without them
 * the warm level is not warm.
 */
async function warmUp(): Promise<PhaseResult> {
  const result = newResult(values.phase ?? 'warm-up');
  const frames = [await cameraFrame(640, 480, 'jpeg'), await cameraFrame(1280, 720, 'jpeg'), await cameraFrame(640, 480, 'png')];
  const serve = async (client: WireClient, nextId: () => number, frame: Frame, what: string) => {
    result.sent++;
    const answer = await sendUntilServed(client, nextId, frame, result);
    if (!answer) result.unanswered++;
    else countInto(result.outcomes, answer.outcome);
    if (answer && answer.outcome !== 'detections') result.problems.push(`warm-up ${what} (${frame.model}): ${answer.outcome}`);
  };
  const client = await connect();
  const models = client.greeting!.models;
  let id = 0;
  for (let i = 0; i < 16; i++)
    await serve(client, () => ++id, { image: frames[i % frames.length]!, model: models[i % models.length]! }, `frame ${i}`);
  await client.close();
  for (let i = 0; i < 4; i++) {
    result.sent++;
    const response = await fetch(`${url}/api/detect?model=${encodeURIComponent(models[i % models.length]!)}`, {
      method: 'POST',
      headers: { 'content-type': i % 2 ? 'image/png' : 'image/jpeg' },
      body: i % 2 ? frames[2]! : frames[0]!,
      signal: AbortSignal.timeout(timeoutMs),
    }).catch(() => undefined);
    if (!response) result.unanswered++;
    else {
      countInto(result.outcomes, `HTTP ${response.status}`);
      await response.arrayBuffer();
      if (response.status !== 200) result.problems.push(`warm-up POST ${i}: HTTP ${response.status}`);
    }
  }
  const connections = Number(values.connections ?? 6);
  const until = Math.min(deadline, performance.now() + Number(values.seconds) * 1000);
  const clients = await Promise.all(Array.from({ length: connections }, connect));
  await Promise.all(
    clients.map(async (c, k) => {
      let n = 0;
      const codec: Codec = k % 2 ? 'json' : 'msgpack';
      for (let i = 0; performance.now() < until; i++)
        await serve(
          c,
          () => ++n,
          { image: frames[(i + k) % 2]!, model: models[(i + k) % models.length]!, codec },
          `client ${k} frame ${i}`,
        );
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  result.notes.push(`16 frames one at a time, 4 HTTP requests, then ${connections} clients at once for ${values.seconds} s`);
  return result;
}

/**
 * What the frame's answer must be: more pixels than the gateway's limit, or a decode clearly dearer than
 * its per-frame cap, is `too_large`; clearly cheaper, detected; within 5% of the cap, either.
 */
function expectation(width: number, height: number, decodeBytesPerPixel: number, maxPixels: number, capMb: number): string[] {
  if (width * height > maxPixels) return ['error too_large'];
  // The gateway's estimate rounds the measured factor up by ~4% and adds 4 MiB of decoder state.
  const mib = (width * height * decodeBytesPerPixel * 1.04) / MIB + 4;
  if (mib > capMb * 1.05) return ['error too_large'];
  if (mib < capMb * 0.95) return ['detections'];
  return ['detections', 'error too_large'];
}

async function large(): Promise<PhaseResult> {
  const result = newResult(values.phase ?? 'large');
  const files = await loadCorpus(values['corpus-dir'] ?? '/tmp/sightline-memory-corpus');
  const connections = Number(values.connections ?? 4);
  const rounds = Number(values.rounds);
  const capMb = Number(values['frame-cap-mb']);
  const clients = await Promise.all(Array.from({ length: connections }, connect));
  const { limits, models } = clients[0]!.greeting!;
  for (const image of CORPUS) {
    const bytes = files.get(image.name)!.length;
    const expected = expectation(image.width, image.height, image.decodeBytesPerPixel, limits.maxPixels, capMb);
    result.notes.push(`${image.name}: ${(bytes / MIB).toFixed(1)} MiB file, expected ${expected.join(' or ')}`);
    if (bytes + 1024 > limits.maxMessageBytes) result.problems.push(`${image.name} (${bytes} bytes) does not fit the message limit`);
  }
  const byImage = new Map<string, Record<string, number>>();
  await Promise.all(
    clients.map(async (client, c) => {
      let id = 0;
      // Each connection its own order, so different encodings decode at the same time.
      const order = CORPUS.map((_, i) => CORPUS[(i * (2 * c + 1) + c) % CORPUS.length]!);
      for (let round = 0; round < rounds && performance.now() < deadline; round++) {
        for (const image of order) {
          if (performance.now() > deadline || !client.open) break;
          const model = models[(c + round) % models.length]!;
          result.sent++;
          const answer = await sendUntilServed(client, () => ++id, { image: files.get(image.name)!, model }, result);
          const outcome = answer?.outcome ?? 'unanswered';
          if (!answer) result.unanswered++;
          countInto(result.outcomes, outcome);
          const perImage = byImage.get(image.name) ?? {};
          countInto(perImage, outcome);
          byImage.set(image.name, perImage);
          const expected = expectation(image.width, image.height, image.decodeBytesPerPixel, limits.maxPixels, capMb);
          if (answer && !expected.includes(outcome)) {
            const detail = answer.message?.type === 'error' ? `: ${answer.message.message}` : '';
            result.problems.push(`${image.name} on connection ${c} (${model}): ${outcome}${detail}, expected ${expected.join(' or ')}`);
          }
        }
      }
    }),
  );
  for (const [name, outcomes] of byImage)
    result.notes.push(
      `${name}: ${Object.entries(outcomes)
        .map(([k, v]) => `${k} x${v}`)
        .join(', ')}`,
    );
  await Promise.all(clients.map((client) => client.close()));
  return result;
}

/** Junk behind JPEG's magic: read as a JPEG, refused once its header does not parse. */
function junkImage(bytes: number): Uint8Array {
  const image = new Uint8Array(bytes);
  randomFillSync(image);
  image.set([0xff, 0xd8, 0xff, 0xe0]);
  return image;
}

async function flood(): Promise<PhaseResult> {
  const result = newResult(values.phase ?? 'flood');
  const connections = Number(values.connections ?? 64);
  const bytes = Number(values.bytes);
  const requests = Number(values.http);
  const image = junkImage(bytes);
  // One encoding for every connection: the same id on each (ids are per connection).
  const message = encodeMessage({ type: 'frame', id: 1, ts: Date.now(), image }, 'msgpack') as Uint8Array;
  result.notes.push(`message ${message.byteLength} bytes on ${connections} WebSockets, body ${bytes} bytes on ${requests} HTTP requests`);
  const clients: WireClient[] = [];
  for (let i = 0; i < connections; i++) clients.push(await connect());
  const limit = clients[0]!.greeting!.limits.maxMessageBytes;
  // Over the limit by more than 1 MiB a message is closed 1009 unread; up to that, it is answered too_large.
  // Within it, the junk is not an image (bad_image), or its random bytes happen to hold a JPEG frame header
  // of absurd dimensions (too_large): either is right.
  const expected =
    message.byteLength > limit + MIB
      ? ['close 1009']
      : message.byteLength > limit
        ? ['error too_large']
        : ['error bad_image', 'error too_large'];
  const httpExpected = bytes > limit ? ['HTTP 413'] : ['HTTP 415', 'HTTP 413'];
  const started = performance.now();
  const ws = clients.map(async (client, c) => {
    result.sent++;
    client.sendRaw(message);
    const waitMs = Math.max(1000, Math.min(timeoutMs, deadline - performance.now()));
    await client.until(() => client.answersTo(1).length > 0 || client.closeEvent !== undefined, waitMs);
    const answer = client.answersTo(1)[0];
    const outcome = answer ? outcomeOf(answer.message) : client.closeEvent ? `close ${client.closeEvent.code}` : 'unanswered';
    if (outcome === 'unanswered') result.unanswered++;
    countInto(result.outcomes, outcome);
    if (outcome !== 'unanswered' && !expected.includes(outcome))
      result.problems.push(`WebSocket ${c}: ${outcome}, expected ${expected.join(' or ')}`);
  });
  const http = Array.from({ length: requests }, async (_, r) => {
    result.sent++;
    const response = await fetch(`${url}/api/detect`, {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: image,
      signal: AbortSignal.timeout(Math.max(1000, Math.min(timeoutMs, deadline - performance.now()))),
    }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    const outcome =
      response instanceof Error
        ? response.name === 'TimeoutError'
          ? 'unanswered'
          : `HTTP failed: ${response.message}`
        : `HTTP ${response.status}`;
    if (!(response instanceof Error)) await response.arrayBuffer();
    if (outcome === 'unanswered') result.unanswered++;
    countInto(result.outcomes, outcome);
    if (outcome !== 'unanswered' && !httpExpected.includes(outcome))
      result.problems.push(`HTTP request ${r}: ${outcome}, expected ${httpExpected.join(' or ')}`);
  });
  await Promise.all([...ws, ...http]);
  result.notes.push(`every message answered or closed within ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await Promise.all(clients.map((client) => client.close()));
  return result;
}

const run = { 'warm-up': warmUp, large, flood }[command as 'warm-up' | 'large' | 'flood'];
let result: PhaseResult;
try {
  result = await run();
} catch (error) {
  result = newResult(command!);
  result.problems.push(`the load failed: ${error instanceof Error ? error.message : String(error)}`);
}
writePhaseResult(values.out, result);
process.stdout.write(
  `${command}: sent ${result.sent}, unanswered ${result.unanswered}; ${Object.entries(result.outcomes)
    .map(([k, v]) => `${k} x${v}`)
    .join(', ')}${result.problems.length ? `; ${result.problems.length} problems` : ''}\n`,
);
process.exit(0);
