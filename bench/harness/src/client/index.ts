/**
 * `@sightline/harness/client`: the gateway's wire from a Node client (one WebSocket, messages decoded,
 * validated and waited for), for everything that talks to a gateway from outside: the benchmark, the
 * deploy tests, and the gateway's own tests. Built on `@sightline/shared` alone, never on the gateway.
 */
export {
  WireClient,
  type Closed,
  type Received,
  type SendOptions,
  type Unreadable,
  type WireClientOptions,
  type WireEvent,
} from './wire-client.ts';
export { wsUrl } from './ws-url.ts';
