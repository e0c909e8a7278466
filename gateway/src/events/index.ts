/**
 * The gateway's events (issue 42, point 5): rules per camera, events from the detections tap, stored, served
 * (history, SSE) and delivered (MQTT, webhooks) from the database. `startEvents` assembles them.
 */
export { startEvents, type EventsConfig, type EventsOptions, type EventsSeams, type EventsService } from './events-service.ts';
export { EVENT_ID_HEADER, SIGNATURE_HEADER, signBody, verifySignature } from './signature.ts';
