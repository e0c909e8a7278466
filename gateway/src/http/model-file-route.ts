/**
 * GET /api/models/<name>/model.onnx: a model's file, for clients that run the model themselves (the
 * dashboard's on-device inference). The file was checked against its manifest's sha256 at start, so
 * that digest is its strong ETag; GET /api/models names it with `?sha256=` in the URL, a new address
 * whenever the file changes, so browsers may keep it for good. Mounted behind the same guard (host,
 * token) as the rest of /api.
 */
import { type Request, type Response } from 'express';
import { ProtocolError } from '@sightline/shared/validation';
import type { Logger } from '../logger.ts';
import type { ModelRegistry } from '../models/model-registry.ts';
import { sendError } from '../frames/http-answers.ts';

/** A year: the URL changes with the content (`?sha256=`), so a cached copy never goes stale. */
const ONE_YEAR_S = 365 * 86_400;

export function modelFileHandler(registry: ModelRegistry, logger: Logger) {
  const refuse = (response: Response, code: 'unknown_model' | 'internal', message: string): void => {
    sendError(response, new ProtocolError(code, message), { logger, context: 'model file' });
  };
  return (request: Request<{ name: string }>, response: Response): void => {
    const { name } = request.params;
    if (!registry.names.includes(name)) {
      refuse(response, 'unknown_model', `unknown model "${name.slice(0, 100)}"; available: ${registry.names.join(', ')}`);
      return;
    }
    const spec = registry.resolve(name);
    const { sha256 } = spec.manifest;
    // A URL naming another digest is a stale address (the file changed since): never answer it with other bytes.
    const asked = request.query.sha256;
    if (asked !== undefined && asked !== sha256) {
      refuse(
        response,
        'unknown_model',
        `model "${name}" has no file with sha256 ${String(asked).slice(0, 64)}; GET /api/models names the current one`,
      );
      return;
    }
    response.sendFile(
      spec.modelPath,
      {
        // `send` answers conditional and range requests against these headers.
        headers: {
          'Content-Type': 'application/octet-stream',
          ETag: `"${sha256}"`,
          // private: behind the token it is not for shared caches.
          'Cache-Control': `private, max-age=${ONE_YEAR_S}, immutable`,
        },
        etag: false,
        lastModified: false,
        dotfiles: 'allow',
      },
      (error?: Error) => {
        if (!error) return;
        // The client went away mid-download (a page closed): nothing wrong here.
        if ((error as NodeJS.ErrnoException).code === 'ECONNABORTED') return;
        logger.error({ err: error, model: name }, 'model file could not be sent');
        if (!response.headersSent) refuse(response, 'internal', `model "${name}": file unavailable`);
      },
    );
  };
}
