import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'express';
import { securityHeaders } from './security-headers';

// The one way an answer is written. Every answer carries the common headers (today the
// security headers: no sniffing, no framing, a sober referrer); an answer's own headers come
// after them, so one that needs a stricter value (a preview's Referrer-Policy) sets it.
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

/** A complete answer on the Node response: the common headers, Content-Length, no body for HEAD. */
export function sendAnswer(req: IncomingMessage, res: ServerResponse, status: number, headers: Headers, body: string | Buffer): void {
  res.writeHead(status, { ...securityHeaders, ...headers, 'Content-Length': Buffer.byteLength(body) });
  res.end(req.method === 'HEAD' ? undefined : body);
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
