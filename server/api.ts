import express, { type Request, type Response } from 'express';
import { maxSectionPageSize, type ContentClient } from '../src/content';
import { apiRoutes, isCursor } from '../src/api-paths';
import { articleIdPattern, findSection, sectionSlugPattern } from '../src/sections';
import { cacheControl } from './cache-policy';
import { KioskError } from './errors';

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

function send(res: Response, cache: string, body: unknown) {
  res.set('Cache-Control', cache).json(body);
}

/** The JSON API the browser renders from. Errors reach the app's handler, which answers JSON. */
export function apiRouter(content: ContentClient): express.Router {
  const api = express.Router({ caseSensitive: true, strict: true });

  api.get(apiRoutes.front, async (_req, res) => {
    send(res, cacheControl.front, await content.frontPage());
  });

  api.get(apiRoutes.section, async (req, res) => {
    const section = sectionParam(req);
    const cursor = queryString(req, 'cursor');
    if (cursor !== undefined && !isCursor(cursor)) {
      throw new KioskError('badRequest', '"cursor" must be an article id (18 digits).');
    }
    const page = await content.section(section.slug, { cursor, limit: limitParam(req) });
    if (!page) throw new KioskError('notFound', `There is no section "${section.slug}".`);
    send(res, cacheControl.section, page);
  });

  api.get(apiRoutes.article, async (req, res) => {
    const id = String(req.params.id);
    if (!articleIdPattern.test(id)) throw new KioskError('badRequest', 'An article id is 18 digits.');
    const article = await content.article(id);
    if (!article) throw new KioskError('notFound', `There is no published article ${id}.`);
    send(res, cacheControl.article, { article });
  });

  api.get(apiRoutes.latest, async (req, res) => {
    send(res, cacheControl.front, { items: await content.latest(limitParam(req)) });
  });

  api.all('/{*rest}', (req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') throw new KioskError('notFound');
    res.set('Allow', 'GET, HEAD');
    throw new KioskError('methodNotAllowed');
  });

  return api;
}
