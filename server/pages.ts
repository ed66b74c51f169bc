import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { answer as sendAnswer } from './answer';
import { answerError } from './answer-error';
import { cacheControl } from './cache-policy';
import { KioskError } from './errors';
import type { WorkerMetrics } from './metrics/worker-metrics';
import { renderPage, type RenderDeps } from './render';
import type { LastGoodWriter } from './last-good/writer';
import type { CachedPage, PageCache } from './page-cache';
import { contentSecurityPolicy, newNonce } from './security-headers';
import { utf8 } from './utf8';

// Server-rendered pages: the route table's last entry, answered through the one pipeline
// (server/app.ts) with the one answer function. The render is the work: nothing runs before it
// but the guard, and the answer is written on the Node response (no framework serialiser, no
// ETag hashing of a 50 KB page).

const maxPathLength = 1024;

/** The path of a page request, checked: a bad one is a 400, never a 500. Query strings are ignored. */
export function pagePath(url: string): string {
  const query = url.indexOf('?');
  const raw = query === -1 ? url : url.slice(0, query);
  // Absolute-form (`GET http://host/path`) and `*` are legal request targets but no page of ours.
  if (!raw.startsWith('/')) throw new KioskError('badRequest', 'The address must be a path.');
  if (raw.length > maxPathLength) throw new KioskError('badRequest', 'The address is too long.');
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new KioskError('badRequest', 'The address is not valid percent-encoding.');
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(decoded)) throw new KioskError('badRequest', 'The address contains control characters.');
  return raw;
}

/**
 * Where a path with a trailing slash redirects, or null. Never off the site: `//host/` would
 * become `//host`, which browsers read as another origin (and `/\host` too), so such paths
 * get no redirect and are answered like any other unknown page.
 */
export function withoutTrailingSlash(path: string): string | null {
  if (path.length <= 1 || !path.endsWith('/')) return null;
  const location = path.replace(/\/+$/, '') || '/';
  return /^\/[/\\]/.test(location) ? null : location;
}

function sendRedirect(req: IncomingMessage, res: ServerResponse, location: string, headers: Record<string, string>) {
  sendAnswer(req, res, 301, { ...headers, Location: location, 'Content-Type': 'text/plain; charset=utf-8' }, `Moved to ${location}\n`);
}

/**
 * A page that may show what a change took back (the content cache's mark moved while it was put
 * together: a change came, or a list was handed out as it was while read again, by the rule at
 * the top of server/content/cache.ts) is answered with `cacheControl`, the shell's short edge
 * lifetime: the edge purge for that change may be out already, and a long lifetime would outlive it.
 */
export interface Vouching {
  mark(): number;
  cacheControl: string;
}

export function createPageHandler(deps: {
  render: RenderDeps;
  metrics: WorkerMetrics;
  cache?: PageCache | null;
  lastGood?: LastGoodWriter | null;
  vouching?: Vouching | null;
}) {
  const { render, metrics } = deps;
  const cache = deps.cache ?? null;
  const lastGood = deps.lastGood ?? null;
  const vouching = deps.vouching ?? null;

  function sendCached(req: IncomingMessage, res: ServerResponse, page: CachedPage) {
    const nonce = newNonce();
    const html = page.html.split(page.nonce).join(nonce);
    const headers = { ...page.headers, 'Content-Security-Policy': contentSecurityPolicy({ nonce }), 'X-Page-Cache': 'hit' };
    sendAnswer(req, res, 200, headers, html);
  }

  async function answer(req: IncomingMessage, res: ServerResponse) {
    const path = pagePath(req.url ?? '/');
    const location = withoutTrailingSlash(path);
    if (location !== null) {
      sendRedirect(req, res, location, { 'Cache-Control': cacheControl.article });
      return;
    }
    const cached = cache?.get(path);
    if (cached) {
      metrics.countMode('ssr');
      sendCached(req, res, cached);
      return;
    }
    const noted = cache?.render() ?? null;
    // Before the render reads anything: the content cache's mark (the last good writer's
    // generation is the same mark). If it has moved by the answer, the page may show what a change
    // took back: no copy of it (server/last-good/writer.ts), and the short edge lifetime (Vouching).
    const mark = vouching?.mark() ?? lastGood?.generation ?? 0;
    const started = performance.now();
    const outcome = await renderPage(path, noted === null ? render : { ...render, content: noted.content });
    metrics.renderMs.record(performance.now() - started);
    metrics.countMode('ssr');
    if (outcome.kind === 'redirect') {
      sendRedirect(req, res, outcome.location, outcome.headers);
      return;
    }
    const headers: Record<string, string> = { ...outcome.headers, 'Content-Type': 'text/html; charset=utf-8' };
    if (vouching !== null && vouching.mark() !== mark) headers['Cache-Control'] = vouching.cacheControl;
    if (cache && noted && outcome.status === 200 && outcome.nonce) cache.set(path, { html: outcome.html, headers, nonce: outcome.nonce }, noted);
    // Encoded once: the answer's bytes are also what a last good copy is written from.
    const body = utf8(outcome.html);
    sendAnswer(req, res, outcome.status, headers, body);
    if (lastGood && outcome.status === 200 && outcome.nonce) {
      const { nonce, cache: kind, canonicalPath } = outcome;
      lastGood.afterAnswer({ path, cache: kind, canonicalPath, body, nonce, headers }, mark);
    }
  }

  return (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void => {
    // Other methods are the pipeline's 405 (server/routes.ts).
    if (req.method !== 'GET' && req.method !== 'HEAD') next();
    else answer(req, res).catch((error: unknown) => answerError(req, res, error, render));
  };
}
