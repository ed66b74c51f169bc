import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Article, ContentClient } from '../src/content';
import { moreFromSectionSize, relatedSize } from '../src/content';
import { articleIdPattern } from '../src/sections';
import { cacheControl } from './cache-policy';
import type { ContentReader } from './content/source';
import { answerError } from './answer';
import { errors, KioskError, type ErrorKind } from './errors';
import { renderPage, type RenderDeps } from './render';

// Editors' preview: /preview/:id?expires=<unix s>&sig=<HMAC-SHA256(PREVIEW_SECRET), base64url>.
// The signature covers the id and the expiry, so a link opens one article until it expires.
// A preview is always server-rendered, whatever the load (the guard never sees /preview/),
// so it has a small concurrency cap of its own, and it is never cached or indexed.

export const previewBanner = 'Preview — not published';
const maxTtlS = 7 * 24 * 3600;

function signature(id: string, expiresS: number, secret: string): string {
  return createHmac('sha256', secret).update(`kiosk-preview:${id}:${expiresS}`).digest('base64url');
}

export function previewPath(id: string, ttlS: number, secret: string, nowMs = Date.now()): string {
  if (!Number.isInteger(ttlS) || ttlS < 1 || ttlS > maxTtlS) throw new RangeError(`a preview link lives 1 s to 7 days, not ${ttlS} s`);
  const expiresS = Math.floor(nowMs / 1000) + ttlS;
  return `/preview/${id}?expires=${expiresS}&sig=${signature(id, expiresS, secret)}`;
}

export type PreviewCheck = 'ok' | 'missing' | 'invalid' | 'expired';

export function checkPreview(id: string, expires: unknown, sig: unknown, secret: string, nowMs = Date.now()): PreviewCheck {
  if (expires === undefined && sig === undefined) return 'missing';
  if (typeof expires !== 'string' || typeof sig !== 'string' || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return 'invalid';
  const expected = Buffer.from(signature(id, Number(expires), secret));
  if (!timingSafeEqual(Buffer.from(sig), expected)) return 'invalid';
  // Checked after the signature, so "expired" is only said of a link we really issued.
  return Number(expires) * 1000 < nowMs ? 'expired' : 'ok';
}

const previewHeaders = { 'Cache-Control': cacheControl.noStore, 'X-Robots-Tag': 'noindex, nofollow', 'Referrer-Policy': 'no-referrer' };

/** The site's content, except that this one article is seen whatever its status. */
function withDraft(content: ContentClient, draft: Article): ContentClient {
  return {
    frontPage: () => content.frontPage(),
    section: (slug, options) => content.section(slug, options),
    article: (id) => (id === draft.id ? Promise.resolve(draft) : content.article(id)),
    latest: (limit) => content.latest(limit),
    tag: (slug, options) => content.tag(slug, options),
    mostRead: (limit) => content.mostRead(limit),
    async articleWithTeasers(id) {
      if (id !== draft.id) return content.articleWithTeasers(id);
      // A draft carries no tag rows yet: its page is previewed with its section's newest around it.
      const page = await content.section(draft.section, { limit: relatedSize + moreFromSectionSize + 1 });
      const others = (page?.items ?? []).filter((t) => t.id !== draft.id);
      return { article: draft, related: others.slice(0, relatedSize), moreFromSection: others.slice(relatedSize, relatedSize + moreFromSectionSize) };
    },
  };
}

export function previewHandler(deps: { secret: string | null; content: ContentReader; render: RenderDeps; concurrencyLimit: number }) {
  let active = 0;
  return async (req: Request, res: Response) => {
    const id = String(req.params.id);
    // The registry's answer (its Retry-After where it has one), with the preview's own no-store over its Cache-Control.
    const fail = (kind: ErrorKind, message: string) => answerError(req, res, new KioskError(kind, message), deps.render, previewHeaders);
    if (deps.secret === null) return fail('notFound', errors.notFound.message);
    if (!articleIdPattern.test(id)) return fail('badRequest', 'An article id is 18 digits.');
    const query = req.query as Record<string, unknown>;
    const check = checkPreview(id, query.expires, query.sig, deps.secret);
    if (check === 'missing') return fail('unauthorized', 'A preview needs a signed link: ask for one with "npm run preview-link".');
    if (check === 'expired') return fail('forbidden', 'This preview link has expired: ask for a new one.');
    if (check === 'invalid') return fail('forbidden', 'This preview link is not valid.');
    if (active >= deps.concurrencyLimit) return fail('unavailable', 'Previews are busy: try again in a moment.');

    active += 1;
    try {
      const draft = await deps.content.articleAnyStatus(id);
      if (!draft) return fail('notFound', `There is no article ${id}.`);
      // A preview carries no scripts, so nothing would fill in what the DOM budget leaves to the browser.
      const render = { ...deps.render, content: withDraft(deps.content, draft), domBudget: false };
      const outcome = await renderPage(`/${draft.section}/${id}`, render, { preview: previewBanner });
      if (outcome.kind !== 'page') return fail('notFound', `There is no article ${id}.`);
      res.status(outcome.status).set({ ...outcome.headers, ...previewHeaders, 'Content-Type': 'text/html; charset=utf-8' });
      res.send(req.method === 'HEAD' ? '' : outcome.html);
    } finally {
      active -= 1;
    }
  };
}
