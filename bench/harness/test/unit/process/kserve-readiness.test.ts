/**
 * Triton's readiness as the process starter asks it, against a stand-in KServe server on a real socket
 * whose answers the test sets: ready only once the server and every model answer 200, and otherwise the
 * endpoint it is still waiting for.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../src/process/free-port.ts';
import { kserveReadiness } from '../../../src/process/kserve-readiness.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A server answering each path with the status `statuses` gives it (404 for any other); resolves with its URL. */
function serve(statuses: Map<string, number>, asked: string[] = []): Promise<string> {
  server = createServer((request, response) => {
    asked.push(request.url!);
    response.writeHead(statuses.get(request.url!) ?? 404).end('{}');
  });
  return new Promise((resolve) =>
    server!.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`)),
  );
}

describe('kserveReadiness', () => {
  it('is ready once the server and every model answer 200, asking each model by its escaped name', async () => {
    const statuses = new Map([
      ['/v2/health/ready', 200],
      ['/v2/models/ssd/ready', 200],
      ['/v2/models/my%20yolo/ready', 200],
    ]);
    const asked: string[] = [];
    const url = await serve(statuses, asked);
    expect(await kserveReadiness(`${url}/`, ['ssd', 'my yolo'])).toBe(true);
    expect(asked).toEqual(['/v2/health/ready', '/v2/models/ssd/ready', '/v2/models/my%20yolo/ready']);
  });

  it('names what it waits for: the server first, then the first model not ready', async () => {
    const statuses = new Map([['/v2/health/ready', 503]]);
    const url = await serve(statuses);
    expect(await kserveReadiness(url, ['ssd'])).toBe(`${url}/v2/health/ready answered 503, not 200 yet`);
    statuses.set('/v2/health/ready', 200);
    expect(await kserveReadiness(url, ['ssd'])).toBe(`${url}/v2/models/ssd/ready answered 404, not 200 yet`);
  });

  it('says there was no answer when nothing listens', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    expect(await kserveReadiness(url, [])).toMatch(new RegExp(`^${url}/v2/health/ready: no answer \\(.*ECONNREFUSED`));
  });
});
