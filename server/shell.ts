import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { Layout } from '../src/components/Layout';
import { ShellPlaceholder } from '../src/pages/ShellPlaceholder';
import type { Assets } from './assets';
import { renderDocument } from './document';
import { answer, prebuilt, type Prebuilt } from './answer';
import { shellPolicy } from './response-policy';

/** The overload answer: one document for every page, rendered once and held as bytes. */
export interface Shell {
  readonly body: Buffer;
  readonly etag: string;
  /** Flat [name, value, …] list, ready for writeHead without building an object per request. */
  readonly headers: readonly string[];
  /** The whole answer, built once. */
  readonly answer: Prebuilt;
  /** Its 304, built once. */
  readonly notModified: Readonly<Record<string, string>>;
}

/**
 * `etagFor` may name the ETag for the rendered body (server/shell-file.ts gives the shell file's
 * when the file holds these bytes); otherwise, or when it gives null, a hash of the body.
 */
export function buildShell(assets: Assets, siteUrl: string, sMaxAgeS: number, etagFor?: (body: Buffer) => string | null): Shell {
  // The chrome is static, so render it now; the browser replaces it when it renders the page.
  const chrome = renderToStaticMarkup(createElement(Layout, null, createElement(ShellPlaceholder)));
  const html = renderDocument({
    head: { title: 'Kiosk', description: 'Kiosk — news as it breaks.', canonicalUrl: null, ogType: 'website' },
    siteUrl,
    assets,
    body: chrome,
    mode: 'shell',
  });
  const body = Buffer.from(html);
  const tag = etagFor?.(body) ?? `"shell-${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`;
  // Its headers are the response policy's (server/response-policy.ts), which Nginx's copy carries too.
  const built = prebuilt(200, shellPolicy(sMaxAgeS), body, { ETag: tag });
  return { body, etag: tag, headers: built.headers, answer: built, notModified: { ETag: tag, 'X-Render-Mode': 'shell' } };
}

/** Answers with the shell, built once: no rendering and no framework work on this path. */
export function serveShell(shell: Shell, req: IncomingMessage, res: ServerResponse): void {
  if (req.headers['if-none-match'] === shell.etag) answer(req, res, 304, shell.notModified, shell.body);
  else answer(req, res, 200, null, shell.answer);
}

/**
 * The shell's answer as data: its exact body bytes and every header it is served with, for
 * whatever serves it without this process (server/shell-file.ts writes it to
 * dist/client/shell.html, which Nginx serves when every worker is full).
 */
export function shellResponse(shell: Shell): { body: Buffer; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  for (let i = 0; i < shell.headers.length; i += 2) headers[shell.headers[i]!] = shell.headers[i + 1]!;
  return { body: shell.body, headers };
}
