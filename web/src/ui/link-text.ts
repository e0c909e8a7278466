/**
 * Words for the emulated link: the Link selector's options and messages, the caption every figure taken
 * through the gateway carries (what it was measured on), and why a link was refused. Pure, unit-tested.
 */
import type { LinkPreset } from '@sightline/shared/link';
import type { LinkRefusal, LinkState } from '../app/link-switch.ts';
import { checkLink, NO_LINK_SPEC, presetOf } from '../link/link-check.ts';
import type { MeasuredLink } from '../link/measured-link.ts';

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
  const label = checkLink(preset.name);
  return [label.ok ? label.label : preset.title, ...preset.sources].join('\n');
}

/** The short name of a link: a preset's title, "None", or a custom link's label up to its first comma. */
export function linkName(spec: string, label?: string): string {
  if (spec === NO_LINK_SPEC) return 'None';
  const preset = presetOf(spec);
  if (preset) return preset.title;
  const check = label === undefined ? checkLink(spec) : undefined;
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

/** The custom field's line as it is typed: what the link would be, or what is wrong with it (one line). */
export function customLinkMessage(draft: string): { valid: boolean; text: string } {
  if (draft.trim() === '') return { valid: false, text: `Type a preset or a spec, e.g. ${LINK_SPEC_EXAMPLE} (up/down; delays one way).` };
  const check = checkLink(draft);
  if (!check.ok) return { valid: false, text: check.message.charAt(0).toUpperCase() + check.message.slice(1) };
  return { valid: true, text: check.emulated ? `Runs behind ${check.label}.` : 'No emulation: the network as it is.' };
}

/** Why the gateway did not take a link, as far as the page can tell, and where the stream is instead: one line. */
export function refusalText(refusal: LinkRefusal): string {
  const why =
    refusal.cause === 'not-this-machine'
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
  if (state.switching)
    return `Putting the stream behind ${asked}: the frames out are answered first, then the gateway's socket reconnects with it.`;
  if (state.target === state.inForce.spec) return undefined;
  const runs = state.inForce.emulated ? linkName(state.inForce.spec, state.inForce.label) : 'no emulated link';
  return `The gateway runs this connection behind ${runs}, not ${asked}: the figures are labelled with what its greeting names.`;
}

/**
 * Under the Link selector while frames go over WebRTC behind a chosen link: the gateway emulates a link on its
 * WebSocket only (a byte stream it paces), so the peer connection runs on the network as it is. Undefined when
 * no link is chosen.
 */
export function webRtcLinkText(spec: string): string | undefined {
  if (spec === NO_LINK_SPEC) return undefined;
  return `Not applied to WebRTC: the gateway puts only its WebSocket behind ${linkName(spec)}; the WebRTC connection runs on the network as it is, and its figures say so.`;
}
