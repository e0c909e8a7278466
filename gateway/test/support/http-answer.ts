/** An HTTP response as the tests look at it: status, headers and the body as text, once all of it has arrived. */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export function readAnswer(res: IncomingMessage): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (body += chunk));
    res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    res.on('error', reject);
  });
}
