/**
 * GET a JSON document from the gateway with the run's token and certificate trust: the REST reads the
 * client makes besides its frames (/api/models). Node's fetch cannot be told which certificate to trust
 * without undici's own Agent, so this goes through node:http(s) like the REST transport.
 */
import http from 'node:http';
import https from 'node:https';
import { authHeaders, tlsOptions, type ClientAccess } from './access.ts';

export interface JsonResponse {
  status: number;
  body: unknown;
}

export function getJson(url: string, options: { access?: ClientAccess | undefined; timeoutMs: number }): Promise<JsonResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const send = secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const request = send(
      target,
      {
        headers: { Accept: 'application/json', ...authHeaders(options.access) },
        timeout: options.timeoutMs,
        ...(secure ? tlsOptions(options.access) : {}),
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('error', reject);
        response.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ status: response.statusCode ?? 0, body });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}
