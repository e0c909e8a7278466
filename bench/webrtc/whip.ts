/**
 * WHIP (RFC 9725) from the client's side: POST the offer, take the answer and the session's Location; DELETE
 * the Location at the end. Done here rather than in the sender so the benchmark can rewrite candidates for
 * the relay, and so every server is asked the same way.
 */

export interface WhipSession {
  answer: string;
  /** Absolute URL of the session resource. */
  location: string;
}

export class WhipRefused extends Error {
  override readonly name = 'WhipRefused';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`WHIP offer refused: HTTP ${status} ${body.slice(0, 300)}`);
  }
}

export async function whipPublish(
  url: string,
  offer: string,
  options: { token?: string | undefined; timeoutMs?: number } = {},
): Promise<WhipSession> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/sdp', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    body: offer,
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const body = await response.text();
  if (response.status !== 201) throw new WhipRefused(response.status, body);
  const location = response.headers.get('location');
  if (!location) throw new Error('WHIP answer without a Location header');
  return { answer: body, location: new URL(location, url).toString() };
}

/** Ends the session; the status (200 when it existed), or 0 when the server could not be reached. */
export async function whipDelete(location: string, options: { token?: string | undefined } = {}): Promise<number> {
  try {
    const response = await fetch(location, {
      method: 'DELETE',
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
