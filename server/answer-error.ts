import type { IncomingMessage, ServerResponse } from 'node:http';
import { routeOf } from '../src/request-kinds';
import { answer, type Headers } from './answer';
import { classify as errorAnswer, errorHeaders } from './errors';
import { describeError, log } from './log';
import { renderErrorPage, type RenderDeps } from './render';
import { contentTypes, errorBody, errorPageHeaders } from './response-policy';

// Apart from answer.ts because it renders the error page in the site's chrome (React): the
// cluster primary writes its own few answers (/metrics) with `answer` and loads no React.

/**
 * Every request that ends in an error is answered here, whichever part of the server it reached:
 * the error registry's status, message, Retry-After and cache lifetime (server/errors.ts), as a
 * JSON error where the route table says the path answers JSON and as a page in the site's
 * chrome everywhere else; internal details go to the log, never to the answer. `headers` are
 * the answer's own on top (a preview's no-store and noindex).
 */
export function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  pages: Pick<RenderDeps, 'assets' | 'siteUrl'>,
  headers: Headers = {},
): void {
  const found = errorAnswer(error);
  if (found.internal) log.error('request failed', { method: req.method, url: req.url, ...describeError(error) });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // Express rewrites url inside a mounted router; originalUrl is what the client asked for.
  if (routeOf((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/').body === 'json') {
    answer(req, res, found.status, { ...errorHeaders(found), ...headers, 'Content-Type': contentTypes.json }, errorBody(found));
    return;
  }
  const page = renderErrorPage(found.status, found.message, pages);
  answer(req, res, found.status, { ...errorPageHeaders, ...errorHeaders(found), ...headers, 'Content-Type': page.contentType }, page.html);
}
