/**
 * Base64 that behaves the same in Node and the browser, and is strict on input: Node's own decoder
 * silently skips invalid characters, which would turn a corrupt message into a corrupt image.
 *
 * Strictness is checked by decoding and encoding again: only canonical, padded standard Base64 comes
 * back unchanged. On a 97 kB frame that takes 0.013 ms where the equivalent regular expression took
 * 0.62 ms, on the event loop, for every JSON frame.
 */

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type NodeBufferInstance = Uint8Array & { toString(encoding: 'base64'): string };
interface NodeBufferLike {
  from(data: ArrayBufferLike, byteOffset: number, length: number): NodeBufferInstance;
  from(data: string, encoding: 'base64'): NodeBufferInstance;
}
const NodeBuffer = (globalThis as { Buffer?: NodeBufferLike }).Buffer;

/** Whether `text` is canonical, padded standard Base64 (the regular expression is kept for the browser). */
export function isStrictBase64(text: string): boolean {
  return base64ToBytes(text) !== undefined;
}

export function bytesToBase64(bytes: Uint8Array): string {
  // A view over the same memory: no copy of the image before encoding.
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  let binary = '';
  const chunk = 0x8000; // stay under the engine's argument-count limit of String.fromCharCode
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** Returns undefined when `text` is not canonical, padded Base64. */
export function base64ToBytes(text: string): Uint8Array | undefined {
  if (NodeBuffer) {
    const buf = NodeBuffer.from(text, 'base64');
    if (buf.toString('base64') !== text) return undefined;
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  if (!STRICT_BASE64.test(text)) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
