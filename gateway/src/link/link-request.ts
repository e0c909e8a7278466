/**
 * The link a client asks its connection to run behind (`?link=` on the WebSocket and on the WHIP `POST`, a preset
 * or a spec of the link lab), checked before the connection is made: a clear one-line reason for a spec that does
 * not parse, for what the connection's path cannot emulate (loss on a byte stream), and for a trace file (the
 * gateway reads no file a client names). `none` is no link. Who may ask: clients on this machine, or with the
 * token (an emulated link holds the connection's bytes in the gateway).
 */
import {
  formatLinkSpec,
  isTransparent,
  linkLabel,
  LinkSpecError,
  parseLinkSpec,
  streamLimitations,
  type LinkProfile,
} from '@sightline/shared/link';

export class LinkRequestError extends Error {}

/** What a connection runs behind, as its `hello` names it. */
export interface RequestedLink {
  profile: LinkProfile;
  spec: string;
  label: string;
}

function requestedProfile(spec: string | null): LinkProfile | undefined {
  if (spec === null || spec.trim() === '') return undefined;
  let profile: LinkProfile;
  try {
    profile = parseLinkSpec(spec);
  } catch (error) {
    throw new LinkRequestError(error instanceof LinkSpecError ? error.message : `bad link spec: ${String(error)}`);
  }
  if (profile.up.traceFile || profile.down.traceFile) {
    throw new LinkRequestError('a trace-driven link reads a file: it is for the benchmark (pnpm bench --link), not for a connection');
  }
  return isTransparent(profile.up) && isTransparent(profile.down) ? undefined : profile;
}

/** The WebSocket's link (a byte stream: no loss), or undefined for none; throws LinkRequestError with the reason. */
export function streamLinkFrom(spec: string | null): LinkProfile | undefined {
  const profile = requestedProfile(spec);
  const limits = profile ? streamLimitations(profile) : [];
  if (limits.length > 0) throw new LinkRequestError(`a WebSocket is a byte stream: ${limits.join('; ')}`);
  return profile;
}

/** A WebRTC peer's link (datagrams: loss too), or undefined for none; throws LinkRequestError with the reason. */
export function datagramLinkFrom(spec: string | null): RequestedLink | undefined {
  const profile = requestedProfile(spec);
  return profile && { profile, spec: formatLinkSpec(profile), label: linkLabel(profile) };
}

/** Whether an address (as proxy-addr or Express's `req.ip` gives it) is this machine's loopback. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));
}

export const LINK_REFUSED_REASON = 'link emulation is only for clients on this machine, or with the access token';
