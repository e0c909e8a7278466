/**
 * The contract every way frames come in by keeps with the composition root (gateway.ts): the WebSocket, HTTP
 * detection, KServe v2, WHIP (its data channels and video tracks). The root makes each way, starts it on the
 * gateway's listener and its routes (behind the access guard), and drains and closes them all alike; no way is
 * drained by name. A way reaches the frame core (frames/frame-service.ts) and nothing else of another way.
 */
import type { Server } from 'node:http';
import type { Router } from 'express';

/** What a way is started on: the one listener (WebSocket upgrades) and the routes behind the HTTP guard. */
export interface WayInHost {
  server: Server;
  routes: Router;
}

export interface WayIn {
  /** For logs: `websocket`, `http`, `kserve-v2`, `whip`. */
  readonly name: string;
  /** Attaches to the listener or the routes; nothing is taken before. */
  start(host: WayInHost): void;
  /** What it holds open now: connections, peers, requests in flight. */
  readonly open: number;
  /** Takes no one new; answers what its clients hold (waiting frames `shutting_down`); resolves when all are closed. */
  drain(): Promise<void>;
  /** Cuts whatever is still open (the drain ran out of time). */
  terminate(): Promise<void> | void;
  /** Releases its timers and servers, after the drain. */
  close(): Promise<void>;
}

/** What each way holds open, by name (the drain's log line). */
export function openByWay(ways: readonly WayIn[]): Record<string, number> {
  return Object.fromEntries(ways.map((way) => [way.name, way.open]));
}
