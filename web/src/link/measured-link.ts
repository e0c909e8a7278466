/**
 * The link a connection really runs behind, as the gateway says in its `hello` (`link: {spec, label}`; absent:
 * no emulation). What the dashboard asked for is not the truth: a gateway may refuse it, or be older than
 * `?link=`. Every figure measured through the gateway is labelled with this.
 */
import type { HelloMessage } from '@sightline/shared/protocol';
import { NO_LINK_SPEC } from './link-check.ts';

export interface MeasuredLink {
  /** Canonical spec (`lte`, `bw=2mbit/10mbit,delay=40ms`), `none` without emulation: the key figures are grouped by. */
  spec: string;
  /** For people: "LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated". */
  label: string;
  /** Emulated by the gateway (not the network as it is). */
  emulated: boolean;
}

export const NO_LINK: MeasuredLink = Object.freeze({ spec: NO_LINK_SPEC, label: 'No link emulation', emulated: false });

export function linkOfHello(hello: Pick<HelloMessage, 'link'>): MeasuredLink {
  return hello.link ? { spec: hello.link.spec, label: hello.link.label, emulated: true } : NO_LINK;
}
