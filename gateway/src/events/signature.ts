/**
 * The webhook's signature: `X-Sightline-Signature: sha256=<hex>`, the HMAC-SHA256 of the request's raw body with
 * the shared secret (GitHub's scheme, which receivers already know how to check). A receiver computes the same
 * over the bytes it received, before parsing them, and compares in constant time.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Sightline-Signature';
export const EVENT_ID_HEADER = 'X-Sightline-Event-Id';

export function signBody(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `header` is the signature of `body` with `secret`. */
export function verifySignature(secret: string, body: string | Uint8Array, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
