/**
 * Webhook delivery: each event is one `POST` of its JSON (a StoredEvent: the event, its `id` and `seq`), one at a
 * time, in order. Headers: `Content-Type: application/json`, `X-Sightline-Event-Id: <id>` (the same on a retry:
 * a receiver drops what it has seen), and, with a secret, `X-Sightline-Signature: sha256=<hex>` (signature.ts).
 * A 2xx answer is delivered; any other answer, a redirect included, or none within the timeout, is a failure
 * the outbox retries with backoff.
 */
import type { StoredEvent } from '@sightline/shared/events';
import type { Sink } from './outbox.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signBody } from './signature.ts';

export interface WebhookSinkOptions {
  url: string;
  secret?: string | undefined;
  /** A request not answered within this fails. */
  timeoutMs: number;
  /** `User-Agent`, naming the gateway. */
  userAgent?: string;
}

export class WebhookSink implements Sink {
  readonly name = 'webhook';
  /** One event per request: the receiver's answer acknowledges exactly that event. */
  readonly batchSize = 1;
  readonly ready = true;

  private readonly options: WebhookSinkOptions;

  constructor(options: WebhookSinkOptions) {
    this.options = options;
  }

  onReady(): void {
    // Always ready: an unreachable receiver is a failed delivery, retried with backoff.
  }

  async deliver(events: readonly StoredEvent[], signal: AbortSignal): Promise<void> {
    for (const event of events) await this.post(event, signal);
  }

  private async post(event: StoredEvent, signal: AbortSignal): Promise<void> {
    const body = JSON.stringify(event);
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': this.options.userAgent ?? 'sightline-gateway',
      [EVENT_ID_HEADER]: event.id,
    };
    if (this.options.secret) headers[SIGNATURE_HEADER] = signBody(this.options.secret, body);
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.options.timeoutMs)]),
    });
    // The answer's body is not read: released, so the connection can serve the next event.
    await response.body?.cancel().catch(() => {});
    if (response.status < 200 || response.status > 299) throw new Error(`webhook answered ${response.status}`);
  }
}
