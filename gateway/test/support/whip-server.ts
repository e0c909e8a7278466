/**
 * A bare node:http server with the WHIP handler and a session manager on loopback: the WebRTC tests'
 * gateway side, without the rest of the gateway (the frame core plugs in through the same manager).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SessionManager, type SessionManagerOptions, type WebRtcConfig } from '../../src/webrtc/index.ts';
import { handleWhipRequest } from '../../src/whip/whip-http.ts';

export interface WhipTestServer {
  url: string;
  manager: SessionManager;
  close(): Promise<void>;
}

export async function startWhipServer(
  options: Omit<SessionManagerOptions, 'config'> & { config?: Partial<WebRtcConfig> } = {},
): Promise<WhipTestServer> {
  const manager = new SessionManager({ ...options, config: { bindAddress: '127.0.0.1', ...options.config } });
  const server: Server = createServer((request, response) => {
    handleWhipRequest(request, response, { manager, basePath: '/whip' })
      .then((handled) => {
        if (!handled) response.writeHead(404).end();
      })
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/whip`,
    manager,
    close: async () => {
      await manager.drain();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
