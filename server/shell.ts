import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { renderToStaticMarkup } from 'react-dom/server';
import { createElement } from 'react';
import { Layout } from '../src/components/Layout';
import { ShellPlaceholder } from '../src/pages/ShellPlaceholder';
import type { Assets } from './assets';
import { renderDocument } from './document';
import { answerHeaderList, sendPrebuiltAnswer } from './answer';
import { contentSecurityPolicy } from './security-headers';

/** The overload answer: one document for every page, rendered once and held as bytes. */
export interface Shell {
  readonly body: Buffer;
  readonly etag: string;
  /** Flat [name, value, …] list, ready for writeHead without building an object per request. */
  readonly headers: readonly string[];
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
  return {
    body,
    etag: tag,
    headers: answerHeaderList({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': String(body.length),
      ETag: tag,
      // The CDN may hold the shell only briefly: once the spike passes, readers should get
      // the server-rendered page again within seconds.
      'Cache-Control': `public, max-age=0, s-maxage=${sMaxAgeS}`,
      'X-Render-Mode': 'shell',
      // Cached and shared: no nonce, so the policy trusts the site's own scripts instead.
      'Content-Security-Policy': contentSecurityPolicy('self'),
    }),
  };
}

/** Answers with the shell directly on the Node response: no framework work on this path. */
export function serveShell(shell: Shell, req: IncomingMessage, res: ServerResponse): void {
  if (req.headers['if-none-match'] === shell.etag) {
    res.writeHead(304, ['ETag', shell.etag, 'X-Render-Mode', 'shell']);
    res.end();
    return;
  }
  sendPrebuiltAnswer(req, res, 200, shell.headers, shell.body);
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
