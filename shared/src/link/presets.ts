/**
 * Named links, each with where its numbers come from. Delays here are ONE-WAY (each direction); published
 * latencies are round trips (ping), so a 40 ms ping is `delay=20ms` each way. Rates: `up` is the client's
 * uplink (a phone sending frames), `down` its downlink. Where a number has no published source it says so.
 */
import type { LinkDirection, LinkProfile } from './profile.ts';

export interface LinkPreset {
  readonly name: string;
  /** Short title for labels and menus. */
  readonly title: string;
  /** False only for `none`: no link is emulated at all. */
  readonly emulated: boolean;
  readonly profile: LinkProfile;
  /** Where each number comes from, one line each. */
  readonly sources: readonly string[];
}

function preset(name: string, title: string, up: LinkDirection, down: LinkDirection, sources: string[]): LinkPreset {
  return Object.freeze({ name, title, emulated: name !== 'none', profile: Object.freeze({ name, up, down }), sources });
}

const OFCOM_MM_2023 =
  'Ofcom, Mobile Matters 2023 (crowdsourced, Oct 2022 - Mar 2023): mean download / upload 29.5 / 7.6 Mbit/s on 4G, 5.9 / 2 Mbit/s on 3G';
const OFCOM_MBB_2014 =
  'Ofcom, Measuring mobile broadband performance in the UK, 2014 (drive and walk tests): mean ping 53.1 ms on 4G, 63.5 ms on 3G';
const OFCOM_MM_2024 =
  'Ofcom, Mobile Matters 2024: mean 4G response time 18.3-23.7 ms by operator; 5% of 4G connections averaged under 2 Mbit/s';
const JIANG_2012 =
  'Jiang, Wang, Lee, Rhee, "Tackling bufferbloat in 3G/4G networks", IMC 2012: carrier buffers let a bulk TCP flow raise the RTT to seconds';

export const LINK_PRESETS: readonly LinkPreset[] = [
  preset('none', 'None', { delayMs: 0, jitterMs: 0 }, { delayMs: 0, jitterMs: 0 }, ['No emulation: the path as it is (loopback here).']),
  preset('lan', 'LAN', { delayMs: 0.25, jitterMs: 0, rateBps: 1e9 }, { delayMs: 0.25, jitterMs: 0, rateBps: 1e9 }, [
    'Switched gigabit Ethernet (IEEE 802.3ab, 1000BASE-T): 1 Gbit/s; a round trip of 0.5 ms is a typical switched-LAN ping (assumed, not measured here).',
  ]),
  preset('wifi', 'Wi-Fi', { delayMs: 10, jitterMs: 8, rateBps: 15e6 }, { delayMs: 10, jitterMs: 8, rateBps: 30e6 }, [
    'Rates: Firefox DevTools\' "Wi-Fi" throttling profile, 30 / 15 Mbit/s down / up.',
    'Delay and jitter: Sui et al., "WiFi can be the weakest link of round trip network latency in the wild" (INFOCOM 2016, 47 campus access points, two months): over half of TCP packets spent more than 20 ms on the Wi-Fi hop, one in ten more than 100 ms; so a 20 +- 16 ms round trip here.',
    'No loss: 802.11 retransmits at the MAC, so a lossy radio shows as jitter, not as IP loss.',
  ]),
  preset(
    'lte',
    'LTE',
    { delayMs: 20, jitterMs: 4, rateBps: 7.6e6, queue: { ms: 250 } },
    { delayMs: 20, jitterMs: 4, rateBps: 29.5e6, queue: { ms: 250 } },
    [
      'Round trip 40 ms: the edge study behind the WebSocket design (a phone on 4G LTE, ~40 ms); between ' +
        "Ofcom's 4G means of 18-24 ms (2024) and 53 ms (2014).",
      OFCOM_MBB_2014,
      OFCOM_MM_2024,
      `Rates: ${OFCOM_MM_2023}.`,
      'Jitter +-4 ms: one LTE HARQ retransmission costs 8 ms (3GPP TS 36.213, FDD); an assumption, not a measurement.',
      `Queue 250 ms: an assumption; cellular buffers are deep (${JIANG_2012}).`,
    ],
  ),
  preset(
    'lte-congested',
    'LTE, congested',
    { delayMs: 40, jitterMs: 10, rateBps: 0.5e6, queue: { ms: 1000 } },
    { delayMs: 40, jitterMs: 10, rateBps: 2e6, queue: { ms: 1000 } },
    [
      `Rate: the slow tail of 4G, ${OFCOM_MM_2024}; the uplink a quarter of it, as in the mean figures.`,
      'Idle round trip 80 ms: twice the lte preset (a busy cell schedules each device less often); an assumption.',
      `Queue 1 s: ${JIANG_2012}. A sender that fills it adds up to 1 s of delay (bufferbloat).`,
    ],
  ),
  preset(
    '3g',
    '3G',
    { delayMs: 32, jitterMs: 8, rateBps: 2e6, queue: { ms: 500 } },
    { delayMs: 32, jitterMs: 8, rateBps: 5.9e6, queue: { ms: 500 } },
    [`Rates: ${OFCOM_MM_2023}.`, `Round trip 64 ms: ${OFCOM_MBB_2014}.`, 'Jitter and the 500 ms queue: assumptions.'],
  ),
  preset(
    'satellite',
    'Satellite (GEO)',
    { delayMs: 300, jitterMs: 10, rateBps: 3e6, queue: { ms: 500 } },
    { delayMs: 300, jitterMs: 10, rateBps: 25e6, queue: { ms: 500 } },
    [
      'Round trip ~600 ms: a geostationary satellite is 35,786 km up; user -> satellite -> gateway and back is ' +
        '~480-540 ms of propagation alone, ~600 ms measured with processing (ITU-T G.114 names GEO links as the case past its 400 ms one-way planning limit).',
      'Rates 25 / 3 Mbit/s: the FCC broadband benchmark (2015-2024) that GEO consumer plans (Viasat, HughesNet) were sold against.',
      'Jitter and queue: assumptions.',
    ],
  ),
];

export const LINK_PRESET_NAMES: readonly string[] = LINK_PRESETS.map((p) => p.name);

export function findPreset(name: string): LinkPreset | undefined {
  return LINK_PRESETS.find((p) => p.name === name.toLowerCase());
}
