/** A loopback port nobody listens on, for a server child process to take. */
import { createServer, type AddressInfo } from 'node:net';

/**
 * Asks the kernel for an ephemeral port and releases it at once. Another process could take it in between;
 * on a test or benchmark machine that race has not been seen, and the child's start-up fails loudly if it happens.
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    // Never the reason the caller's process stays alive.
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
