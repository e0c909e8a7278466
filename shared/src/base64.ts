/**
 * Base64 that behaves the same in Node and the browser, and is strict on input: Node's own decoder
 * silently skips invalid characters, which would turn a corrupt message into a corrupt image.
 */

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type NodeBufferInstance = Uint8Array & { toString(encoding: 'base64'): string };
interface NodeBufferLike {
  from(data: ArrayBufferLike, byteOffset: number, length: number): NodeBufferInstance;
  from(data: string, encoding: 'base64'): NodeBufferInstance;
}
const NodeBuffer = (globalThis as { Buffer?: NodeBufferLike }).Buffer;

export function isStrictBase64(text: string): boolean {
  return STRICT_BASE64.test(text);
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
  if (!isStrictBase64(text)) return undefined;
  if (NodeBuffer) {
    const buf = NodeBuffer.from(text, 'base64');
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
