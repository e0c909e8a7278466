/**
 * `@sightline/gateway/client`: the gateway's wire from a Node client (one WebSocket, messages decoded,
 * validated and waited for), for the packages that talk to a gateway from outside: the benchmark, the
 * deploy tests, and the gateway's own tests. Kept apart from the main entry so importing it loads none of
 * the gateway itself.
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
