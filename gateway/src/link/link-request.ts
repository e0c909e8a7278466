/**
 * The link a client asks its connection to run behind (`?link=` on the WebSocket, a preset or a spec of the link
 * lab), checked on the upgrade: a clear one-line reason for a spec that does not parse, for what a byte stream
 * cannot emulate (loss), and for a trace file (the gateway reads no file a client names). `none` is no link.
 */
import { isTransparent, LinkSpecError, parseLinkSpec, streamLimitations, type LinkProfile } from '@sightline/shared/link';

export class LinkRequestError extends Error {}

/** The profile to emulate, or undefined for none; throws LinkRequestError with the reason. */
export function streamLinkFrom(spec: string | null): LinkProfile | undefined {
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
  const limits = streamLimitations(profile);
  if (limits.length > 0) throw new LinkRequestError(`a WebSocket is a byte stream: ${limits.join('; ')}`);
  return isTransparent(profile.up) && isTransparent(profile.down) ? undefined : profile;
}
