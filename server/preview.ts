import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Article, ContentClient } from '../src/content';
import { moreFromSectionSize, relatedSize } from '../src/content';
import { articleIdPattern } from '../src/sections';
import { cacheControl } from './cache-policy';
import type { ContentReader } from './content/source';
import { answer } from './answer';
import { answerError } from './answer-error';
import { errors, KioskError, type ErrorKind } from './errors';
import { renderPage, type RenderDeps } from './render';
import { contentTypes } from './response-policy';
import { pathUnder } from '../src/request-kinds';

// Editors' preview: /preview/:id?issued=<unix ms>&expires=<unix s>&sig=<HMAC-SHA256(PREVIEW_SECRET), base64url>.
// The signature covers the id, the issue time and the expiry, so a link opens one article until
// it expires, or until the article is taken off the site: the store keeps, per article, the time
// before which its links are revoked, and a link issued at or before it is refused. The server
// holds every link to the 7-day lifetime, whatever its signature says, so a leaked secret or a
// hand-made link cannot outlive that. Links from before issue times (no `issued`) are refused:
// nothing could revoke them.
// A preview is always server-rendered, whatever the load (the guard never sees /preview/),
// so it has a small concurrency cap of its own, and it is never cached or indexed.

export const previewBanner = 'Preview — not published';
const maxTtlS = 7 * 24 * 3600;

/** How far ahead of this server's clock a link's issue time may be (the clock of the machine that made it). */
const issueSkewMs = 60_000;

function signature(id: string, issuedMs: number, expiresS: number, secret: string): string {
  // A different text from the links before issue times, so no old signature passes for a new one.
  return createHmac('sha256', secret).update(`kiosk-preview-issued:${id}:${issuedMs}:${expiresS}`).digest('base64url');
}

/** A signed link to the article's preview, issued at `nowMs`, for `ttlS` seconds. */
export function previewPath(id: string, ttlS: number, secret: string, nowMs = Date.now()): string {
  if (!Number.isInteger(ttlS) || ttlS < 1 || ttlS > maxTtlS) throw new RangeError(`a preview link lives 1 s to 7 days, not ${ttlS} s`);
  const issuedMs = Math.floor(nowMs);
  const expiresS = Math.floor(nowMs / 1000) + ttlS;
  return `${pathUnder('preview', id)}?issued=${issuedMs}&expires=${expiresS}&sig=${signature(id, issuedMs, expiresS, secret)}`;
}

export type PreviewCheck = { kind: 'ok'; issuedMs: number } | { kind: 'missing' | 'invalid' | 'outdated' | 'expired' | 'tooLong' };

/** The link's query, checked against the secret and the clock; revocation needs the store, so the handler checks that. */
export function checkPreview(id: string, query: Record<string, unknown>, secret: string, nowMs = Date.now()): PreviewCheck {
  const { issued, expires, sig } = query;
  if (issued === undefined && expires === undefined && sig === undefined) return { kind: 'missing' };
  if (issued === undefined && typeof expires === 'string' && typeof sig === 'string') return { kind: 'outdated' };
  if (typeof issued !== 'string' || typeof expires !== 'string' || typeof sig !== 'string') return { kind: 'invalid' };
  if (!/^\d{1,15}$/.test(issued) || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return { kind: 'invalid' };
  const [issuedMs, expiresMs] = [Number(issued), Number(expires) * 1000];
  const expected = Buffer.from(signature(id, issuedMs, Number(expires), secret));
  if (!timingSafeEqual(Buffer.from(sig), expected)) return { kind: 'invalid' };
  // Checked after the signature, so what is said of a link is only said of one we really issued.
  if (issuedMs > nowMs + issueSkewMs) return { kind: 'invalid' };
  if (expiresMs < nowMs) return { kind: 'expired' };
  if (expiresMs - issuedMs > maxTtlS * 1000 || expiresMs - nowMs > maxTtlS * 1000) return { kind: 'tooLong' };
  return { kind: 'ok', issuedMs };
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
  /** `id` is the path's segment after /preview/, decoded. */
  return async (req: Request, res: Response, id: string): Promise<void> => {
    // The registry's answer (its Retry-After where it has one), with the preview's own no-store over its Cache-Control.
    const fail = (kind: ErrorKind, message: string) => answerError(req, res, new KioskError(kind, message), deps.render, previewHeaders);
    if (deps.secret === null) return fail('notFound', errors.notFound.message);
    if (!articleIdPattern.test(id)) return fail('badRequest', 'An article id is 18 digits.');
    const check = checkPreview(id, req.query as Record<string, unknown>, deps.secret);
    if (check.kind === 'missing') return fail('unauthorized', 'A preview needs a signed link: ask for one with "npm run preview-link".');
    if (check.kind === 'expired') return fail('forbidden', 'This preview link has expired: ask for a new one.');
    if (check.kind === 'outdated')
      return fail('forbidden', 'This preview link is of an old kind that cannot be taken back, so it is no longer accepted: ask for a new one.');
    if (check.kind === 'tooLong') return fail('forbidden', 'This preview link would live longer than the 7 days any link may: ask for a new one.');
    if (check.kind !== 'ok') return fail('forbidden', 'This preview link is not valid.');
    if (active >= deps.concurrencyLimit) return fail('unavailable', 'Previews are busy: try again in a moment.');

    active += 1;
    try {
      const revokedBefore = await deps.content.previewsRevokedBefore(id);
      if (revokedBefore !== null && check.issuedMs <= Date.parse(revokedBefore)) {
        return fail('forbidden', 'This preview link was taken back when the story was taken off the site: ask for a new one.');
      }
      const draft = await deps.content.articleAnyStatus(id);
      if (!draft) return fail('notFound', `There is no article ${id}.`);
      // A preview carries no scripts, so nothing would fill in what the DOM budget leaves to the browser.
      const render = { ...deps.render, content: withDraft(deps.content, draft), domBudget: false };
      const outcome = await renderPage(`/${draft.section}/${id}`, render, { preview: previewBanner });
      if (outcome.kind !== 'page') return fail('notFound', `There is no article ${id}.`);
      answer(req, res, outcome.status, { ...outcome.headers, ...previewHeaders, 'Content-Type': contentTypes.html }, outcome.html);
    } finally {
      active -= 1;
    }
  };
}
