/**
 * A real webhook receiver for the tests (node:http on loopback): records every request (its raw body, headers,
 * and whether the signature checks out), and answers as the test asks: `500` for the first N requests, no answer
 * at all (it hangs) for the first N, then `200`.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredEvent } from '@sightline/shared/events';
import { SIGNATURE_HEADER, verifySignature } from '../../src/events/signature.ts';

export interface ReceivedRequest {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** With a secret given to the receiver: whether the signature header is the body's. */
  signed: boolean;
  /** What the receiver answered: a status, or `hung`. */
  answer: number | 'hung';
}

export interface WebhookReceiverOptions {
  secret?: string;
  /** The first N requests are answered 500. */
  failFirst?: number;
  /** The first N requests are never answered (after any that fail). */
  hangFirst?: number;
}

export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly hung: ServerResponse[] = [];
  private readonly waiters: Array<() => void> = [];

  private readonly server: Server;
  readonly url: string;

  private constructor(server: Server, url: string) {
    this.server = server;
    this.url = url;
  }

  static async start(options: WebhookReceiverOptions = {}): Promise<WebhookReceiver> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () =>
        receiver.received(request.method ?? '', request.headers, Buffer.concat(chunks).toString('utf8'), response, options),
      );
    });
    return receiver;
  }

  /** The events answered 2xx, in the order they were. */
  get delivered(): StoredEvent[] {
    return this.requests.filter((r) => r.answer === 200).map((r) => JSON.parse(r.body) as StoredEvent);
  }

  /** Resolves once `test()` holds (checked on every request), or rejects after `timeoutMs` (a failure's bound only). */
  async until(test: () => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`webhook receiver: condition not met after ${this.requests.length} requests`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    for (const response of this.hung) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private received(
    method: string,
    headers: IncomingHttpHeaders,
    body: string,
    response: ServerResponse,
    options: WebhookReceiverOptions,
  ): void {
    const index = this.requests.length;
    const signatureHeader = headers[SIGNATURE_HEADER.toLowerCase()];
    const signed =
      options.secret !== undefined &&
      verifySignature(options.secret, body, typeof signatureHeader === 'string' ? signatureHeader : undefined);
    const failing = options.failFirst ?? 0;
    const hanging = options.hangFirst ?? 0;
    const answer = index < failing ? 500 : index < failing + hanging ? 'hung' : 200;
    this.requests.push({ method, headers, body, signed, answer });
    if (answer === 'hung') this.hung.push(response);
    else response.writeHead(answer, { 'Content-Type': 'text/plain' }).end(answer === 200 ? 'ok' : 'failing on purpose');
    for (const wake of this.waiters.splice(0)) wake();
  }
}
