/**
 * Every HTTP request but the probes passes here: its Host must name the gateway, and where a token is in
 * force it must carry it (cookie or `Authorization: Bearer`). A browser that opens the printed URL with
 * `?token=` gets the token as an HttpOnly, SameSite=Strict cookie and is sent on to the same address
 * without it, so the token leaves the address bar (and the history, and screenshots).
 */
import type { NextFunction, Request, Response } from 'express';
import { serialize } from 'cookie';
import { ProtocolError } from '@sightline/shared/validation';
import { sendMessage } from '../frames/http-answers.ts';
import { errorReply } from '../frames/replies.ts';
import { TOKEN_COOKIE, TOKEN_QUERY_PARAM, type AccessPolicy, type Verdict } from '../security/access-policy.ts';

const TOKEN_PAGE = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sightline: access token needed</title>
<body style="font-family:system-ui;background:#0f1115;color:#e6e6e6;padding:2rem;max-width:40rem">
<h1>Access token needed</h1>
<p>This Sightline gateway is open to the network and asks for its access token.</p>
<p>Open the address the gateway printed when it started (it ends in <code>?token=…</code>), or scan the QR code
shown by a dashboard that is already connected.</p></body>`;

/** Paths answered as API (JSON errors); everything else is a page for people. */
const isApi = (path: string) => path.startsWith('/api/') || path.startsWith('/v2') || path === '/healthz' || path === '/metrics';

function refuse(request: Request, response: Response, verdict: Extract<Verdict, { ok: false }>): void {
  const code = verdict.status === 401 ? 'unauthorized' : 'forbidden';
  if (verdict.status === 401) response.setHeader('WWW-Authenticate', 'Bearer realm="sightline"');
  if (isApi(request.path) || verdict.status === 403) {
    sendMessage(response, verdict.status, errorReply(new ProtocolError(code, verdict.reason)).reply);
    return;
  }
  response.status(verdict.status).type('html').send(TOKEN_PAGE);
}

export function httpGuard(policy: AccessPolicy, options: { secureCookie: boolean }) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const host = policy.checkHost(request.headers.host);
    if (!host.ok) return refuse(request, response, host);

    const fromUrl = request.query[TOKEN_QUERY_PARAM];
    if (typeof fromUrl === 'string' && request.method === 'GET' && policy.tokenRequired) {
      if (!policy.tokenMatches(fromUrl)) return refuse(request, response, { ok: false, status: 401, reason: 'wrong access token' });
      response.setHeader(
        'Set-Cookie',
        serialize(TOKEN_COOKIE, fromUrl, {
          httpOnly: true,
          secure: options.secureCookie,
          sameSite: 'strict',
          path: '/',
          maxAge: 30 * 86_400,
        }),
      );
      const clean = new URL(request.originalUrl, 'http://gateway');
      clean.searchParams.delete(TOKEN_QUERY_PARAM);
      response.setHeader('Cache-Control', 'no-store');
      response.redirect(302, `${clean.pathname}${clean.search}`);
      return;
    }

    const token = policy.checkToken(request.headers);
    if (!token.ok) return refuse(request, response, token);
    next();
  };
}
