/**
 * One HTTP request of a fuzz case, on a new connection, with exactly the headers and body it names (no
 * client-side compression, no Content-Type guessing), and what came back as an outcome of the shared
 * vocabulary (fuzz-case.ts).
 */
import http from 'node:http';
import type { FuzzInput, Observation } from './fuzz-case.ts';

/** Bodies are read up to this much; the size beyond is still counted. */
const KEEP_BYTES = 1024 * 1024;

export function httpProbe(baseUrl: string, input: Extract<FuzzInput, { channel: 'http' }>, timeoutMs: number): Promise<Observation> {
  const url = new URL(input.path, baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (seen: Observation) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(seen);
    };
    const timer = setTimeout(() => finish({ outcome: 'timeout' }), timeoutMs);
    const request = http.request(
      url,
      { method: input.method, headers: { ...input.headers, 'content-length': String(input.body.length) }, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= KEEP_BYTES) chunks.push(chunk);
        });
        response.on('end', () =>
          finish(readAnswer(response.statusCode ?? 0, String(response.headers['content-type'] ?? ''), Buffer.concat(chunks), bytes)),
        );
        response.on('error', (error) => finish({ outcome: 'failed', message: error.message }));
      },
    );
    // The gateway may answer (413) and close before the whole body is written: the answer counts, the EPIPE not.
    request.on('error', (error: NodeJS.ErrnoException) =>
      setTimeout(() => finish({ outcome: 'failed', message: error.code ?? error.message }), 200),
    );
    request.end(input.body);
  });
}

function readAnswer(status: number, contentType: string, body: Buffer, bytes: number): Observation {
  const seen: Observation = { outcome: `http ${status}`, replyBytes: bytes };
  if (!contentType.includes('json')) return seen;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    seen.invalidReply = 'a JSON Content-Type but not JSON';
    return seen;
  }
  if (value.type === 'detections') seen.outcome = `http ${status} detections`;
  else if (value.type === 'error') seen.outcome = `http ${status} error:${String(value.code)}`;
  if (typeof value.id === 'number') seen.id = value.id;
  if (typeof value.width === 'number') seen.width = value.width;
  if (typeof value.height === 'number') seen.height = value.height;
  if (typeof value.message === 'string') seen.message = value.message;
  return seen;
}
