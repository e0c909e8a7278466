/**
 * Words for the emulated link: the Link selector's options and messages, the caption every figure taken
 * through the gateway carries (what it was measured on), and why a link was refused. Pure, unit-tested.
 */
import type { LinkPreset } from '@sightline/shared/link';
import type { LinkRefusal, LinkState } from '../app/link-switch.ts';
import { checkLink, NO_LINK_SPEC, presetOf } from '../link/link-check.ts';
import type { MeasuredLink } from '../link/measured-link.ts';
import type { Transport } from '../transport/transports.ts';

/** An example custom spec, as the link lab writes them (up/down where a slash is given; delays one way). */
export const LINK_SPEC_EXAMPLE = 'bw=2mbit/10mbit,delay=40ms,jitter=5ms,queue=100ms';

/** A preset in the selector: its title and its round trip ("LTE · 40 ms RTT"). */
export function presetOptionText(preset: LinkPreset): string {
  if (!preset.emulated) return 'None';
  const rtt = preset.profile.up.delayMs + preset.profile.down.delayMs;
  return `${preset.title} · ${Number(rtt.toFixed(1))} ms RTT`;
}

/** A preset's tooltip: what it is, and where its numbers come from. */
export function presetHint(preset: LinkPreset): string {
  const label = checkLink(preset.name, 'webrtc');
  return [label.ok ? label.label : preset.title, ...preset.sources].join('\n');
}

/** The short name of a link: a preset's title, "None", or a custom link's label up to its first comma. */
export function linkName(spec: string, label?: string): string {
  if (spec === NO_LINK_SPEC) return 'None';
  const preset = presetOf(spec);
  if (preset) return preset.title;
  const check = label === undefined ? checkLink(spec, 'webrtc') : undefined;
  const text = label ?? (check?.ok ? check.label : spec);
  return text.split(',')[0]!;
}

/** What a figure was measured on: "Measured on LTE · 40 ms RTT ±4, ↓29.5 ↑7.6 Mbit/s, emulated". */
export function linkCaption(link: MeasuredLink): string {
  return link.emulated ? `Measured on ${link.label}` : 'Measured on no emulated link: the network as it is';
}

/** Over the picture while the stream runs behind an emulated link. */
export function linkBadgeText(link: MeasuredLink): string {
  return `Emulated link · ${link.label.replace(/, emulated$/, '')}`;
}

/** The custom field's line as it is typed: what the link would be over `transport`, or what is wrong with it (one line). */
export function customLinkMessage(draft: string, transport: Transport): { valid: boolean; text: string } {
  if (draft.trim() === '') return { valid: false, text: `Type a preset or a spec, e.g. ${LINK_SPEC_EXAMPLE} (up/down; delays one way).` };
  const check = checkLink(draft, transport);
  if (!check.ok) return { valid: false, text: check.message.charAt(0).toUpperCase() + check.message.slice(1) };
  return { valid: true, text: check.emulated ? `Runs behind ${check.label}.` : 'No emulation: the network as it is.' };
}

/** Why the gateway did not take a link, as far as the page can tell, and where the stream is instead: one line. */
export function refusalText(refusal: LinkRefusal): string {
  const why =
    refusal.cause === 'stated'
      ? (refusal.detail ?? 'no reason given').replace(/\.$/, '')
      : refusal.cause === 'not-this-machine'
        ? 'it emulates links only for a browser on its own machine, or with the access token, and this page is on another device'
        : `a browser is not told why a WebSocket was refused (${refusal.detail ?? 'it never opened'})`;
  return `The gateway refused the link ${linkName(refusal.spec)}: ${why}. The stream stays on ${linkName(refusal.instead)}.`;
}

/**
 * A switch under way; or, once greeted, a gateway that runs another link than the one asked for (its hello is
 * the truth: one older than `?link=` names none); undefined when the link asked for is the one in force.
 */
export function switchingText(state: LinkState): string | undefined {
  const asked = linkName(state.target);
  if (state.switching) {
    const anew = state.via === 'webrtc' ? 'a new WebRTC session (WHIP) is made behind it' : "the gateway's socket reconnects with it";
    return `Putting the stream behind ${asked}: the frames out are answered first, then ${anew}.`;
  }
  if (state.target === state.inForce.spec) return undefined;
  const runs = state.inForce.emulated ? linkName(state.inForce.spec, state.inForce.label) : 'no emulated link';
  return `The gateway runs this connection behind ${runs}, not ${asked}: the figures are labelled with what its greeting names.`;
}

/** A link's label without its ", emulated" ("Custom · 60 ms RTT, 1% loss"); "None" for none. */
function linkTitle(spec: string): string {
  if (spec === NO_LINK_SPEC) return 'None';
  const check = checkLink(spec, 'webrtc');
  return check.ok ? check.label.replace(/, emulated$/, '') : spec;
}

/**
 * Said when frames go over the WebSocket while the link chosen has loss (chosen over WebRTC, or in the address):
 * the WebSocket runs `instead`, the same link without its loss.
 */
export function websocketFallbackText(chosen: string, instead: string): string {
  return `The WebSocket cannot run the link ${linkTitle(chosen)}: a byte stream cannot lose a TCP segment (loss needs Transport WebRTC); ${linkTitle(instead)} is used instead.`;
}
