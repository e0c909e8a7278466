/**
 * The events API, as an express Router that http/app.ts mounts behind the guard (token, Host and Origin rules):
 *
 *   GET  CAMERAS_PATH                       the cameras with rules or events
 *   GET  CAMERA_RULES_PATH                  a camera's rules (empty lists for a camera without)
 *   PUT  CAMERA_RULES_PATH                  replaces them (body CameraRules, JSON, at most `maxBodyBytes`)
 *   GET  CAMERA_COUNTS_PATH                 its counts per rule, kind and label
 *   GET  EVENTS_PATH?camera=&since=&limit=  the history, oldest first, after seq `since`, `limit` 1..1000 (100)
 *   GET  EVENTS_STREAM_PATH?camera=&since=  Server-Sent Events (event-stream.ts), resumable with Last-Event-ID
 *
 * Anything wrong in a request is a 400 `bad_message` naming the field (`lines[2].from`, `camera`, `since`), built
 * by the gateway's one error builder; a body too large is 413 `too_large`; the stream full is 503 `overloaded`.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { CAMERA_COUNTS_PATH, CAMERA_RULES_PATH, CAMERAS_PATH, EVENTS_PATH, EVENTS_STREAM_PATH } from '@sightline/shared/protocol';
import {
  cameraNameError,
  parseCameraRules,
  RulesError,
  type CameraCountsResponse,
  type CameraRules,
  type CameraRulesResponse,
  type CamerasResponse,
  type EventsPage,
  type StoredEvent,
} from '@sightline/shared/events';
import { ProtocolError } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import { sendError } from '../frames/http-answers.ts';
import type { EventStream } from './event-stream.ts';

/** What the routes read and change; the events service implements it over the database. */
export interface EventsApi {
  cameras(): CamerasResponse;
  rules(camera: string): CameraRulesResponse;
  putRules(camera: string, rules: CameraRules): CameraRulesResponse;
  counts(camera: string): CameraCountsResponse;
  events(since: number, limit: number, camera?: string): StoredEvent[];
  stream: EventStream;
}

export interface EventsRouterOptions {
  api: EventsApi;
  logger: Logger;
  /** Largest rules body (bytes). */
  maxBodyBytes: number;
}

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;
/** When a client refused because the stream is full may try again. */
const STREAM_RETRY_MS = 5000;

export function eventsRouter({ api, logger, maxBodyBytes }: EventsRouterOptions): Router {
  const router = express.Router();
  const fail = (response: Response, error: unknown, context: string) => sendError(response, error, { logger, context });

  router.get(CAMERAS_PATH, (_request, response) => {
    try {
      response.setHeader('Cache-Control', 'no-store');
      response.json(api.cameras());
    } catch (error) {
      fail(response, error, 'listing cameras');
    }
  });

  router.get(CAMERA_RULES_PATH, (request, response) => {
    try {
      response.setHeader('Cache-Control', 'no-store');
      response.json(api.rules(cameraOf(request)));
    } catch (error) {
      fail(response, error, 'reading rules');
    }
  });

  // Any content type is read as JSON: `curl -d` sends a form type by default, and the body is checked anyway.
  router.put(CAMERA_RULES_PATH, express.json({ limit: maxBodyBytes, type: () => true }), (request, response) => {
    try {
      const camera = cameraOf(request);
      let rules: CameraRules;
      try {
        rules = parseCameraRules(request.body);
      } catch (error) {
        if (error instanceof RulesError) throw new ProtocolError('bad_message', error.message);
        throw error;
      }
      response.setHeader('Cache-Control', 'no-store');
      response.json(api.putRules(camera, rules));
    } catch (error) {
      fail(response, error, 'replacing rules');
    }
  });

  router.get(CAMERA_COUNTS_PATH, (request, response) => {
    try {
      response.setHeader('Cache-Control', 'no-store');
      response.json(api.counts(cameraOf(request)));
    } catch (error) {
      fail(response, error, 'reading counts');
    }
  });

  router.get(EVENTS_PATH, (request, response) => {
    try {
      const camera = optionalCamera(request);
      const since = integerParam(request, 'since', 0) ?? 0;
      const limit = integerParam(request, 'limit', 1, MAX_PAGE) ?? DEFAULT_PAGE;
      // One more than asked for says whether there is a next page.
      const events = api.events(since, limit + 1, camera);
      const page: EventsPage = { events: events.slice(0, limit) };
      if (events.length > limit) page.next = page.events.at(-1)!.seq;
      response.setHeader('Cache-Control', 'no-store');
      response.json(page);
    } catch (error) {
      fail(response, error, 'reading events');
    }
  });

  router.get(EVENTS_STREAM_PATH, (request, response) => {
    try {
      const camera = optionalCamera(request);
      // A browser reconnecting sends the last id it saw: newer than the `since` its address was opened with.
      const since = lastEventId(request) ?? integerParam(request, 'since', 0);
      if (api.stream.full)
        throw new ProtocolError('overloaded', 'too many event streams are open; try again later', undefined, STREAM_RETRY_MS);
      api.stream.open(request, response, camera, since);
    } catch (error) {
      fail(response, error, 'opening the event stream');
    }
  });

  // The body parser's refusals (too large, not JSON) as the gateway's errors, not express's HTML pages.
  router.use((error: Error & { type?: string; status?: number }, _request: Request, response: Response, next: NextFunction) => {
    if (response.headersSent) return next(error);
    const known =
      error.type === 'entity.too.large'
        ? new ProtocolError('too_large', `the rules body is larger than ${maxBodyBytes} bytes`)
        : error.type === 'entity.parse.failed'
          ? new ProtocolError('bad_message', `body: not valid JSON (${error.message})`)
          : error.status !== undefined && error.status < 500
            ? new ProtocolError('bad_message', error.message)
            : error;
    fail(response, known, 'events request');
  });

  return router;
}

function cameraOf(request: Request): string {
  const name = String(request.params.name ?? '');
  const problem = cameraNameError(name);
  if (problem !== undefined) throw new ProtocolError('bad_message', `camera: ${problem}`);
  return name;
}

function optionalCamera(request: Request): string | undefined {
  const value = request.query.camera;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ProtocolError('bad_message', 'camera: give one camera name');
  const problem = cameraNameError(value);
  if (problem !== undefined) throw new ProtocolError('bad_message', `camera: ${problem}`);
  return value;
}

/** A whole-number query parameter within [min, max], or undefined when absent. */
function integerParam(request: Request, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = request.query[name];
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new ProtocolError('bad_message', `${name}: must be a whole number from ${min} to ${max}`);
  }
  return number;
}

function lastEventId(request: Request): number | undefined {
  const value = request.headers['last-event-id'];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new ProtocolError('bad_message', 'Last-Event-ID: must be the id of an event (a whole number)');
  }
  return Number(value);
}
