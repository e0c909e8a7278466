/** A real WebSocket client that records every gateway message and can wait for specific ones. */
import WebSocket from 'ws';
import { decodeServerMessage, encodeMessage, type WireData } from '@sightline/shared/codec';
import type { ClientMessage, Codec, ServerMessage } from '@sightline/shared/protocol';

export interface Received {
  message: ServerMessage;
  codec: Codec;
  /** performance.now() on arrival. */
  at: number;
}

export class TestClient {
  readonly received: Received[] = [];
  private waiters: Array<() => void> = [];
  closeEvent: { code: number; reason: string } | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      const wire: WireData = isBinary ? new Uint8Array(data) : data.toString('utf8');
      this.received.push({ message: decodeServerMessage(wire), codec: isBinary ? 'msgpack' : 'json', at: performance.now() });
      this.notify();
    });
    socket.on('close', (code, reason) => {
      this.closeEvent = { code, reason: reason.toString() };
      this.notify();
    });
  }

  static connect(url: string): Promise<TestClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      const client = new TestClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }

  send(message: ClientMessage, codec: Codec): void {
    this.socket.send(encodeMessage(message, codec));
  }

  sendRaw(data: string | Buffer): void {
    this.socket.send(data);
  }

  /** Messages answering request `id` (hello and id-less errors excluded). */
  answersTo(id: number): Received[] {
    return this.received.filter((r) => r.message.type !== 'hello' && 'id' in r.message && r.message.id === id);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(`timed out; received: ${JSON.stringify(this.received.map((r) => r.message)).slice(0, 1000)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the single answer to request `id` and returns it. */
  async answer(id: number): Promise<Received> {
    await this.waitFor(() => this.answersTo(id).length > 0);
    return this.answersTo(id)[0]!;
  }

  /** The hello the gateway sends first on every connection. */
  async hello(): Promise<Received> {
    await this.waitFor(() => this.received.some((r) => r.message.type === 'hello'));
    return this.received.find((r) => r.message.type === 'hello')!;
  }

  /** Waits for the next message received after this call (e.g. an error without id). */
  async next(): Promise<Received> {
    const seen = this.received.length;
    await this.waitFor(() => this.received.length > seen);
    return this.received[seen]!;
  }

  close(): void {
    this.socket.close();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
