// The image's HEALTHCHECK: GET /readyz on this container's gateway, exit 0 when it answers 200. Slim
// images have no curl; node's own https module also takes the gateway's self-signed certificate, which
// fetch() cannot be told to accept. /readyz needs no token and fails while the gateway drains.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

// HOST=0.0.0.0 in the image means exposed, hence HTTPS unless SIGHTLINE_TLS=off (docs/SECURITY.md).
const tls = process.env.SIGHTLINE_TLS !== 'off' || Boolean(process.env.SIGHTLINE_TLS_CERT);
const send = tls ? httpsRequest : httpRequest;
const url = `${tls ? 'https' : 'http'}://127.0.0.1:${process.env.PORT || 8080}/readyz`;
const request = send(url, { rejectUnauthorized: false, timeout: 2000 }, (response) => {
  response.resume();
  process.exit(response.statusCode === 200 ? 0 : 1);
});
request.on('timeout', () => request.destroy(new Error('no answer within 2 s')));
request.on('error', (error) => {
  console.error(`healthcheck: ${url}: ${error.message}`);
  process.exit(1);
});
request.end();
