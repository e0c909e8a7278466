/**
 * A way in made of HTTP requests, one frame each (`POST /api/detect`, KServe v2 `infer`): its routes, and the
 * requests in flight counted so the drain can wait for their answers. Requests arriving while the gateway
 * drains are turned away by the app before they reach a way (http/app.ts).
 */
import express, { type Router } from 'express';
import type { WayIn } from './way-in.ts';

/** `routes` mounted at `path` (their own paths are relative to it). */
export function requestWay(name: string, path: string, routes: Router): WayIn {
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const counted = express.Router();
  counted.use((_request, response, next) => {
    inFlight++;
    // 'close' comes for every response: answered, or its connection gone.
    response.once('close', () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    next();
  });
  counted.use(routes);
  return {
    name,
    start: (host) => void host.routes.use(path, counted),
    get open() {
      return inFlight;
    },
    drain: () => new Promise<void>((resolve) => (inFlight === 0 ? resolve() : (idle = resolve))),
    // The listener cuts the connections themselves (gateway.ts).
    terminate: () => undefined,
    close: () => Promise.resolve(),
  };
}
