/**
 * The process helper on a real child: a few lines of Node that serve a valid /healthz, print when told, and
 * exit on SIGTERM the way the test decides. What the helper reports (output as it comes, a signal sent
 * without waiting, how and when the process ended) is checked against what the child was made to do.
 */
import { describe, expect, it } from 'vitest';
import { freePort, ServerProcess } from '../../../src/process/index.ts';

/** Serves GET /healthz; prints `ready` once listening and `bye` on SIGTERM, then exits with code 3. */
const CHILD = `
const http = require('node:http');
const health = JSON.stringify({ ok: true, protocol: 1, modelsLoaded: [], uptimeS: 0 });
const server = http.createServer((request, response) => response.end(health));
server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ready'));
process.on('SIGTERM', () => {
  console.log('bye');
  server.close(() => process.exit(3));
});
`;

describe('server process', () => {
  it('hands its output to the caller as it comes, sends a signal without waiting, and says how the process ended', async () => {
    const port = await freePort();
    let output = '';
    const server = await ServerProcess.start({
      name: 'stand-in',
      command: process.execPath,
      args: ['-e', CHILD],
      cwd: process.cwd(),
      port,
      env: { PORT: String(port) },
      onOutput: (text) => (output += text),
    });
    expect(server.running).toBe(true);
    const signalledAt = performance.now();
    server.signal('SIGTERM');
    const exit = await server.exited;
    expect(exit).toMatchObject({ code: 3, signal: null });
    expect(exit.at).toBeGreaterThanOrEqual(signalledAt);
    expect(output).toBe('ready\nbye\n');
    expect(server.output()).toBe(output);
    expect(server.running).toBe(false);
    // Stopping what has already ended resolves at once.
    await server.stop();
  });
});
