import express, { type Request, type Response } from 'express';
import { maxSectionPageSize, type ContentClient } from '../src/content';
import { apiRoutes, isCursor } from '../src/api-paths';
import { articleIdPattern, findSection, sectionSlugPattern } from '../src/sections';
import { isTagSlug } from '../src/tags';
import { cacheControl } from './cache-policy';
import { KioskError } from './errors';
import { clientAddress, clientKey } from './client-address';
import { isCrossSite } from './same-site';
import type { ViewCounter } from './views';

function queryString(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new KioskError('badRequest', `"${name}" must be given once.`);
  return value;
}

function limitParam(req: Request): number | undefined {
  const raw = queryString(req, 'limit');
  if (raw === undefined) return undefined;
  const limit = /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
  if (!(limit >= 1 && limit <= maxSectionPageSize)) {
    throw new KioskError('badRequest', `"limit" must be a whole number from 1 to ${maxSectionPageSize}.`);
  }
  return limit;
}

function sectionParam(req: Request) {
  const slug = String(req.params.slug);
  if (!sectionSlugPattern.test(slug)) throw new KioskError('badRequest', 'A section is lower-case letters and hyphens.');
  const section = findSection(slug);
  if (!section) throw new KioskError('notFound', `There is no section "${slug}".`);
  return section;
}

function cursorParam(req: Request): string | undefined {
  const cursor = queryString(req, 'cursor');
  if (cursor !== undefined && !isCursor(cursor)) throw new KioskError('badRequest', '"cursor" must be an article id (18 digits).');
  return cursor;
}

function send(res: Response, cache: string, body: unknown) {
  res.set('Cache-Control', cache).json(body);
}

export interface ApiOptions {
  /** Counts article views (POST /api/views/:id); null where the store keeps no counts. */
  views: ViewCounter | null;
  /** Which X-Forwarded-For entry names the reader (CLIENT_ADDRESS_HOPS). */
  clientHops: number;
  /** The site's origin: view beacons from any other are refused. */
  siteUrl: string;
}

/** The JSON API the browser renders from. Errors reach the app's handler, which answers JSON. */
export function apiRouter(content: ContentClient, options: ApiOptions): express.Router {
  const api = express.Router({ caseSensitive: true, strict: true });

  api.get(apiRoutes.front, async (_req, res) => {
    send(res, cacheControl.front, await content.frontPage());
  });

  api.get(apiRoutes.section, async (req, res) => {
    const section = sectionParam(req);
    const cursor = cursorParam(req);
    const page = await content.section(section.slug, { cursor, limit: limitParam(req) });
    if (!page) throw new KioskError('notFound', `There is no section "${section.slug}".`);
    send(res, cacheControl.section, page);
  });

  api.get(apiRoutes.article, async (req, res) => {
    const id = String(req.params.id);
    if (!articleIdPattern.test(id)) throw new KioskError('badRequest', 'An article id is 18 digits.');
    const page = await content.articleWithTeasers(id);
    if (!page) throw new KioskError('notFound', `There is no published article ${id}.`);
    send(res, cacheControl.article, page);
  });

  api.get(apiRoutes.tag, async (req, res) => {
    const slug = String(req.params.slug);
    if (!isTagSlug(slug)) throw new KioskError('badRequest', 'A tag is lower-case words joined by hyphens, at most 40 characters.');
    const page = await content.tag(slug, { cursor: cursorParam(req), limit: limitParam(req) });
    if (!page) throw new KioskError('notFound', `No published article is tagged "${slug}".`);
    send(res, cacheControl.tag, page);
  });

  api.get(apiRoutes.mostRead, async (req, res) => {
    // Moves with every flush of views: cached like the front page.
    send(res, cacheControl.front, { items: await content.mostRead(limitParam(req)) });
  });

  // A beacon's answer is read by nobody: refusals are plain statuses (a 429 says when to come
  // back), and none of them is logged, however many a flood sends.
  api.post(apiRoutes.view, (req, res) => {
    res.set('Cache-Control', cacheControl.noStore);
    const id = String(req.params.id);
    if (!articleIdPattern.test(id)) throw new KioskError('badRequest', 'An article id is 18 digits.');
    if (isCrossSite(req, options.siteUrl)) throw new KioskError('crossSite', 'Views are counted from pages of this site only.');
    const views = options.views;
    if (views === null) {
      res.status(204).end();
      return;
    }
    const outcome = views.record(id, clientKey(clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], options.clientHops)));
    if (outcome === 'limited') {
      res.status(429).set('Retry-After', String(views.retryAfterS())).end();
      return;
    }
    if (outcome === 'unknown') throw new KioskError('notFound', `There is no published article ${id}.`);
    res.status(204).end();
  });

  api.get(apiRoutes.latest, async (req, res) => {
    send(res, cacheControl.front, { items: await content.latest(limitParam(req)) });
  });

  api.all('/{*rest}', (req, res) => {
    if (req.path.startsWith('/views/')) {
      res.set('Allow', 'POST');
      throw new KioskError('methodNotAllowed', 'This address only answers POST.');
    }
    if (req.method === 'GET' || req.method === 'HEAD') throw new KioskError('notFound');
    res.set('Allow', 'GET, HEAD');
    throw new KioskError('methodNotAllowed');
  });

  return api;
}
