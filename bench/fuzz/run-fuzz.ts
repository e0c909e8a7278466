/**
 * Sends seeded fuzz cases to a gateway one at a time and judges every answer (fuzz-case.ts). After each
 * case the connection must still work (a ping comes back with nothing else in between; every so often a
 * real frame is detected), unless the case closed it, in which case a new connection must work. HTTP and
 * raw-TCP cases are followed by a health check. Stops early only if the gateway dies.
 */
import type { WireClient, WireEvent } from '@sightline/harness/client';
import { MODELS_PATH } from '@sightline/shared/protocol';
import { realClock, type PacingClock } from '../client/pacing.ts';
import { isRunning, readRssKb } from '../reliability/process-stats.ts';
import { healthy } from '../reliability/gateway-under-test.ts';
import { buildCorpus, type Corpus } from './corpus.ts';
import { CATEGORIES, judge, LOAD_SHEDDING_WS, type Category, type FuzzCase, type Observation } from './fuzz-case.ts';
import { nextAnswer, observe, openGreeted, pingThrough } from './answers.ts';
import { httpProbe } from './http-probe.ts';
import { generateCase, type GatewayFacts } from './malformed-inputs.ts';
import { tcpProbe, wsFrameProbe } from './tcp-probe.ts';
import { encodeValue } from './wire-input.ts';

export interface FuzzOptions {
  /** Gateway base URL, http://host:port. */
  url: string;
  seed: number;
  cases: number;
  /** First case index (to replay one case: startIndex = its index, cases = 1). */
  startIndex?: number;
  /** A case (and each check after it) without an answer in this time fails. */
  timeoutMs?: number;
  categories?: readonly Category[];
  /** The gateway's pid, for its memory before, after, and after `idleMs` of rest. */
  pid?: number;
  idleMs?: number;
  /** A real frame must be detected after every this many cases (pings after every case). */
  validFrameEvery?: number;
  /**
   * Messages per second the runner sends on its WebSocket, at most: below a gateway's per-connection rate
   * limit (200/s by default), so cases are judged on what they are, not on how fast they came.
   */
  maxMessagesPerSecond?: number;
  onCase?(record: CaseRecord, done: number): void;
}

export interface CaseRecord {
  index: number;
  category: Category;
  channel: FuzzCase['channel'];
  name: string;
  expected: string[];
  got: string;
  pass: boolean;
  problems: string[];
  ms: number;
  replyBytes: number;
  errorMessageChars: number;
}

export interface CategoryStats {
  cases: number;
  failed: number;
  ms: number;
  outcomes: Record<string, number>;
}

export interface FuzzReport {
  seed: number;
  startIndex: number;
  cases: number;
  ran: number;
  passed: number;
  failed: number;
  durationMs: number;
  facts: GatewayFacts;
  byCategory: Partial<Record<Category, CategoryStats>>;
  /** Every failed case (up to 1,000 kept). */
  failures: CaseRecord[];
  unanswered: number;
  internalErrors: number;
  invalidReplies: number;
  /** Messages that came after a case's answer and before the ping's pong: a second answer. */
  extraReplies: number;
  /** A connection that did not work after a case that should have left it working (or a new one after a close). */
  connectionFailures: number;
  reconnects: number;
  /** Cases resent after a `rate_limited` answer or a 1008 close (the runner backs off; not failures). */
  rateLimitedRetries: number;
  closes: Record<string, number>;
  maxReplyBytes: number;
  maxErrorMessageChars: number;
  /** The gateway stopped answering its health check (or its process ended) during the run. */
  crashed: boolean;
  aliveAtEnd: boolean;
  rssKb?: { before?: number; after?: number; afterIdle?: number; idleMs: number };
}

const RATE_LIMIT_BACKOFF_MS = 1100;
export const DEFAULT_MAX_MESSAGES_PER_SECOND = 150;
const MAX_RETRIES = 3;
const KEEP_FAILURES = 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The limits and models a generator needs, from the hello and GET /api/models. */
export async function readFacts(url: string, timeoutMs = 10_000): Promise<GatewayFacts> {
  const client = await openGreeted(url, timeoutMs);
  const limits = (client.greeting?.limits ?? {}) as Record<string, unknown>;
  await client.close(1000);
  const models = (await (await fetch(`${url}${MODELS_PATH}`, { signal: AbortSignal.timeout(timeoutMs) })).json()) as {
    models: Array<{ name: string }>;
  };
  return {
    maxMessageBytes: Number(limits.maxMessageBytes ?? 10 * 1024 * 1024),
    maxPixels: Number(limits.maxPixels ?? 40_000_000),
    models: models.models.map((m) => m.name),
    host: new URL(url).host,
  };
}

/** Spaces messages evenly at no more than `perSecond`. */
export class Pacer {
  private next = Number.NEGATIVE_INFINITY;
  constructor(
    private readonly perSecond: number,
    private readonly clock: PacingClock = realClock,
  ) {}

  /** Resolves when the next message may go: at once if the last went long enough ago. */
  async wait(): Promise<void> {
    const at = Math.max(this.clock.now(), this.next);
    this.next = at + 1000 / this.perSecond;
    const delay = at - this.clock.now();
    if (delay > 0) await this.clock.sleep(delay);
  }
}

/** The run's WebSocket: reopened whenever a case (or the gateway) closed it. */
class Connection {
  private opened = 0;
  private socket: WireClient | undefined;
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  get current(): WireClient | undefined {
    return this.socket?.open ? this.socket : undefined;
  }

  /** Connections opened after the first. */
  get reconnects(): number {
    return Math.max(0, this.opened - 1);
  }

  async get(): Promise<WireClient> {
    if (this.socket?.open) return this.socket;
    this.socket = await openGreeted(this.url, this.timeoutMs);
    this.opened++;
    return this.socket;
  }

  drop(): void {
    this.socket?.terminate();
    this.socket = undefined;
  }

  async close(): Promise<void> {
    await this.socket?.close(1000);
  }
}

export class FuzzRunner {
  private readonly timeoutMs: number;
  private readonly connection: Connection;
  private nextCheckId = 1_000_000_000;
  private sinceValidFrame = 0;
  private readonly pacer: Pacer;

  constructor(
    private readonly options: FuzzOptions,
    private readonly facts: GatewayFacts,
    private readonly corpus: Corpus,
  ) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.connection = new Connection(options.url, this.timeoutMs);
    this.pacer = new Pacer(options.maxMessagesPerSecond ?? DEFAULT_MAX_MESSAGES_PER_SECOND);
  }

  get reconnects(): number {
    return this.connection.reconnects;
  }

  rateLimitedRetries = 0;
  extraReplies = 0;

  close(): Promise<void> {
    return this.connection.close();
  }

  /** Sends one case and everything that checks the gateway after it; returns the verdict. */
  async run(fuzzCase: FuzzCase): Promise<{ seen: Observation; problems: string[] }> {
    const { input } = fuzzCase;
    const url = new URL(this.options.url);
    if (input.channel === 'http' || input.channel === 'tcp' || input.channel === 'tcp-ws') {
      const seen =
        input.channel === 'http'
          ? await httpProbe(this.options.url, input, this.timeoutMs)
          : input.channel === 'tcp'
            ? await tcpProbe(url.hostname, Number(url.port), input.bytes, this.timeoutMs)
            : await wsFrameProbe(url.hostname, Number(url.port), input.bytes, this.timeoutMs);
      const problems = judge(fuzzCase.expect, seen).problems;
      if (!(await healthy(this.options.url, this.timeoutMs))) problems.push('the gateway was not healthy after it');
      return { seen, problems };
    }

    let seen: Observation;
    let event: WireEvent | undefined;
    for (let attempt = 0; ; attempt++) {
      let socket: WireClient;
      try {
        socket = await this.connection.get();
      } catch (error) {
        return {
          seen: { outcome: 'failed', message: String(error) },
          problems: [`no connection: ${error instanceof Error ? error.message : String(error)}`],
        };
      }
      await this.pacer.wait();
      socket.sendRaw(input.data, { text: input.channel === 'ws-text' });
      event = await nextAnswer(socket, this.timeoutMs);
      seen = event ? observe(event) : { outcome: 'timeout' };
      if (!event) this.connection.drop();
      const limited = seen.outcome === 'error:rate_limited' || seen.outcome === 'close:1008';
      if (!limited || fuzzCase.expect.accept.includes(seen.outcome) || attempt >= MAX_RETRIES) break;
      // Sent faster than the gateway's message-rate limit allows: not the case's fault; slow down and resend.
      this.rateLimitedRetries++;
      if (seen.outcome === 'close:1008') this.connection.drop();
      await sleep(RATE_LIMIT_BACKOFF_MS);
    }
    const problems = judge(fuzzCase.expect, seen).problems;
    const closed = !event || event.kind === 'close';
    const check = closed
      ? await this.checkNewConnection()
      : await this.checkSameConnection(input.channel === 'ws-text' ? 'json' : 'msgpack');
    if (check) problems.push(check);
    return { seen, problems };
  }

  /** After a close (or a case left unanswered): a new connection must answer a ping and detect a frame. */
  private async checkNewConnection(): Promise<string | undefined> {
    this.connection.drop();
    try {
      const socket = await this.connection.get();
      return (await this.ping(socket, 'json')) ?? (await this.validFrame(socket, 'msgpack'));
    } catch (error) {
      return `a new connection did not work after it: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private async checkSameConnection(codec: 'json' | 'msgpack'): Promise<string | undefined> {
    const socket = this.connection.current;
    if (!socket) return 'the connection was closed after the answer';
    const problem = await this.ping(socket, codec);
    if (problem) return problem;
    if (++this.sinceValidFrame >= (this.options.validFrameEvery ?? 25)) return this.validFrame(socket, codec);
    return undefined;
  }

  private async ping(socket: WireClient, codec: 'json' | 'msgpack'): Promise<string | undefined> {
    for (let attempt = 0; ; attempt++) {
      await this.pacer.wait();
      const result = await pingThrough(socket, this.nextCheckId++, codec, this.timeoutMs);
      const extras = result.extras.map((e) => observe(e).outcome);
      const limited = extras.length > 0 && extras.every((o) => o === 'error:rate_limited');
      if (limited && attempt < MAX_RETRIES) {
        this.rateLimitedRetries++;
        await sleep(RATE_LIMIT_BACKOFF_MS);
        continue;
      }
      const messages = result.extras.filter((e) => e.kind === 'message');
      this.extraReplies += messages.length;
      if (result.ok && messages.length === 0) return undefined;
      this.connection.drop();
      if (result.ok) return `a second answer after the first: ${extras.join(', ')}`;
      if (result.timedOut) return `connection unusable after it: no pong within ${this.timeoutMs} ms`;
      return `connection unusable after it: ${extras.join(', ') || 'closed'}`;
    }
  }

  private async validFrame(socket: WireClient, codec: 'json' | 'msgpack'): Promise<string | undefined> {
    this.sinceValidFrame = 0;
    const id = this.nextCheckId++;
    await this.pacer.wait();
    socket.sendRaw(encodeValue({ type: 'frame', id, ts: 1, image: this.corpus.small }, codec), { text: codec === 'json' });
    const event = await nextAnswer(socket, this.timeoutMs);
    const seen = event ? observe(event) : { outcome: 'timeout' };
    if ((seen.outcome === 'detections' || LOAD_SHEDDING_WS.includes(seen.outcome)) && seen.id === id) return undefined;
    this.connection.drop();
    return `a valid frame after it was answered ${seen.outcome}${seen.id !== undefined && seen.id !== id ? ` (id ${seen.id})` : ''}`;
  }
}

/** Runs `options.cases` cases and reports what happened. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const facts = await readFacts(options.url);
  const corpus = await buildCorpus(facts.maxMessageBytes);
  const runner = new FuzzRunner(options, facts, corpus);
  const startIndex = options.startIndex ?? 0;
  const categories = options.categories ?? CATEGORIES;
  const report: FuzzReport = {
    seed: options.seed,
    startIndex,
    cases: options.cases,
    ran: 0,
    passed: 0,
    failed: 0,
    durationMs: 0,
    facts,
    byCategory: {},
    failures: [],
    unanswered: 0,
    internalErrors: 0,
    invalidReplies: 0,
    extraReplies: 0,
    connectionFailures: 0,
    reconnects: 0,
    rateLimitedRetries: 0,
    closes: {},
    maxReplyBytes: 0,
    maxErrorMessageChars: 0,
    crashed: false,
    aliveAtEnd: false,
  };
  const rssBefore = options.pid === undefined ? undefined : readRssKb(options.pid);

  for (let i = 0; i < options.cases; i++) {
    const fuzzCase = generateCase(options.seed, startIndex + i, facts, corpus, categories);
    const t0 = performance.now();
    const { seen, problems } = await runner.run(fuzzCase);
    const record: CaseRecord = {
      index: fuzzCase.index,
      category: fuzzCase.category,
      channel: fuzzCase.channel,
      name: fuzzCase.name,
      expected: fuzzCase.expect.accept,
      got: seen.outcome,
      pass: problems.length === 0,
      problems,
      ms: performance.now() - t0,
      replyBytes: seen.replyBytes ?? 0,
      errorMessageChars: seen.message?.length ?? 0,
    };
    tally(report, record, seen);
    options.onCase?.(record, i + 1);
    const processGone = options.pid !== undefined && !isRunning(options.pid);
    if (processGone || problems.some((p) => p.startsWith('the gateway was not healthy') || p.startsWith('a new connection did not work'))) {
      if (processGone || !(await healthy(options.url, options.timeoutMs ?? 5000))) {
        report.crashed = true;
        break;
      }
    }
  }
  await runner.close();
  report.reconnects = runner.reconnects;
  report.rateLimitedRetries = runner.rateLimitedRetries;
  report.extraReplies = runner.extraReplies;
  report.aliveAtEnd = await healthy(options.url);
  report.durationMs = performance.now() - started;
  if (options.pid !== undefined) {
    const idleMs = options.idleMs ?? 10_000;
    const after = readRssKb(options.pid);
    if (idleMs > 0) await sleep(idleMs);
    report.rssKb = { before: rssBefore, after, afterIdle: idleMs > 0 ? readRssKb(options.pid) : undefined, idleMs };
  }
  return report;
}

function tally(report: FuzzReport, record: CaseRecord, seen: Observation): void {
  report.ran++;
  if (record.pass) report.passed++;
  else {
    report.failed++;
    if (report.failures.length < KEEP_FAILURES) report.failures.push(record);
  }
  const stats = (report.byCategory[record.category] ??= { cases: 0, failed: 0, ms: 0, outcomes: {} });
  stats.cases++;
  stats.ms += record.ms;
  if (!record.pass) stats.failed++;
  stats.outcomes[record.got] = (stats.outcomes[record.got] ?? 0) + 1;
  if (record.got === 'timeout' || record.got === 'tcp:open') report.unanswered++;
  if (record.got.includes('error:internal')) report.internalErrors++;
  if (seen.invalidReply) report.invalidReplies++;
  if (record.got.startsWith('close:')) report.closes[record.got] = (report.closes[record.got] ?? 0) + 1;
  if (record.problems.some((p) => /connection|new connection|second answer|valid frame/.test(p))) report.connectionFailures++;
  report.maxReplyBytes = Math.max(report.maxReplyBytes, record.replyBytes);
  report.maxErrorMessageChars = Math.max(report.maxErrorMessageChars, record.got.includes('error:') ? record.errorMessageChars : 0);
}
