import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import { classify as requestKind } from '../src/request-kinds';
import { classify as errorAnswer, errorHeaders } from './errors';
import { describeError, log } from './log';
import { renderErrorPage, type RenderDeps } from './render';
import { contentSecurityPolicy, securityHeaders } from './security-headers';
import { utf8 } from './utf8';

// The last stage of every request: the one way an answer is written, and the one way an error
// is answered (answerError). Every answer carries the common headers (today the security
// headers: no sniffing, no framing, a sober referrer); an answer's own headers come after them,
// so one that needs a stricter value (a preview's Referrer-Policy) sets it.
// Answers on the plain Node response (pages, error pages, the shell, the shed 503) go through
// `sendAnswer` or are built once with `answerHeaders`/`answerHeaderList`; the Express app sets
// the same headers with `commonHeadersMiddleware` before any route runs.

export type Headers = Readonly<Record<string, string>>;

/** An answer's headers with the common ones under them. */
export function answerHeaders(headers: Headers): Record<string, string> {
  return { ...securityHeaders, ...headers };
}

/** The same as a flat [name, value, …] list, for answers built once and written with writeHead. */
export function answerHeaderList(headers: Headers): string[] {
  return Object.entries(answerHeaders(headers)).flat();
}

/**
 * A complete answer on the Node response: the common headers, Content-Length, no body for HEAD.
 * A text body is encoded once, here (server/utf8.ts): measuring its byte length and then writing
 * the string had Node walk a 35–55 KB page twice (7% of a busy worker's time each, in a CPU profile).
 */
export function sendAnswer(req: IncomingMessage, res: ServerResponse, status: number, headers: Headers, body: string | Buffer): void {
  const bytes = typeof body === 'string' ? utf8(body) : body;
  res.writeHead(status, { ...securityHeaders, ...headers, 'Content-Length': bytes.length });
  res.end(req.method === 'HEAD' ? undefined : bytes);
}

/** A complete answer built once: its header list already holds the common headers and Content-Length. */
export function sendPrebuiltAnswer(req: IncomingMessage, res: ServerResponse, status: number, headerList: readonly string[], body: Buffer): void {
  res.writeHead(status, headerList as string[]);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** For the Express app: every answer it writes, JSON, files and errors alike, gets the common headers. */
export function commonHeadersMiddleware(_req: unknown, res: Response, next: () => void): void {
  res.set(securityHeaders);
  next();
}

/** Error pages and message pages carry no scripts at all. */
export const errorPageHeaders = { 'Content-Security-Policy': contentSecurityPolicy('none') };

/**
 * Every request that ends in an error is answered here, whichever part of the server it reached:
 * the error registry's status, message, Retry-After and cache lifetime (server/errors.ts), as a
 * JSON error for the API's kinds of request and as a page in the site's chrome for every other;
 * internal details go to the log, never to the answer. `headers` are the answer's own on top (a
 * preview's no-store and noindex).
 */
export function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  pages: Pick<RenderDeps, 'assets' | 'siteUrl'>,
  headers: Headers = {},
): void {
  const answer = errorAnswer(error);
  if (answer.internal) log.error('request failed', { method: req.method, url: req.url, ...describeError(error) });
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // Express rewrites url inside a mounted router; originalUrl is what the client asked for.
  const kind = requestKind((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/');
  if (kind === 'api' || kind === 'beacon' || kind === 'ingest') {
    const body = JSON.stringify({ error: { code: answer.code, message: answer.message } });
    sendAnswer(req, res, answer.status, { ...errorHeaders(answer), ...headers, 'Content-Type': 'application/json; charset=utf-8' }, body);
    return;
  }
  const page = renderErrorPage(answer.status, answer.message, pages);
  sendAnswer(req, res, answer.status, { ...errorPageHeaders, ...errorHeaders(answer), ...headers, 'Content-Type': page.contentType }, page.html);
}
