import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { articlePath } from '../src/content';
import { articleIdPattern } from '../src/sections';
import { cacheControl } from './cache-policy';
import type { ArticleWriter } from './content/source';
import { KioskError } from './errors';
import { ingestMaxBodyBytes, parseIngestedArticle } from './ingest-schema';
import { log } from './log';
import { strictJsonBody } from './strict-json';

// The CMS pushes articles here: PUT creates or replaces one (draft or published), DELETE takes
// it off the site. Authorised by one bearer token; the body is parsed only after that.

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Compared in constant time whatever the token's length: both sides are hashed to 32 bytes first. */
function authorise(token: string) {
  const expected = digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      res.set('WWW-Authenticate', 'Bearer realm="kiosk-ingest"');
      next(new KioskError('unauthorized', 'A valid "Authorization: Bearer <INGEST_TOKEN>" header is required.'));
      return;
    }
    next();
  };
}

function articleId(req: Request): string {
  const id = String(req.params.id);
  if (!articleIdPattern.test(id)) throw new KioskError('badRequest', 'An article id is 18 digits.');
  return id;
}

/** Mounted at /api/ingest. Without a token configured, ingestion is off and every address here is 404. */
export function ingestRouter(token: string | null, writer: () => ArticleWriter): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  if (token === null) {
    router.use(() => {
      throw new KioskError('notFound', 'Ingestion is not enabled on this server.');
    });
    return router;
  }

  router.use(authorise(token));
  router.use((req, _res, next) => {
    // The no-store applies to every answer, errors included: none is for a cache.
    _res.set('Cache-Control', cacheControl.noStore);
    if (req.method === 'PUT' && !req.is('application/json')) {
      next(new KioskError('unsupportedMediaType'));
      return;
    }
    next();
  });
  // UTF-8 only, each key once (server/strict-json.ts); the same byte limit and 413 as express.json.
  router.use(strictJsonBody(ingestMaxBodyBytes));

  router.put('/articles/:id', async (req, res) => {
    const id = articleId(req);
    const article = parseIngestedArticle(id, req.body, new Date());
    const outcome = await writer().upsert(article);
    log.info('article ingested', { id, outcome, status: article.status });
    res.status(outcome === 'created' ? 201 : 200).json({
      id,
      outcome,
      status: article.status,
      path: articlePath(article),
      updatedAt: article.updatedAt,
    });
  });

  router.delete('/articles/:id', async (req, res) => {
    const id = articleId(req);
    const updatedAt = new Date().toISOString();
    if (!(await writer().unpublish(id, updatedAt))) throw new KioskError('notFound', `There is no article ${id}.`);
    log.info('article unpublished', { id });
    res.json({ id, outcome: 'unpublished', status: 'draft', updatedAt });
  });

  router.all('/articles/:id', (_req, res) => {
    res.set('Allow', 'PUT, DELETE');
    throw new KioskError('methodNotAllowed', 'This address answers PUT and DELETE.');
  });

  return router;
}
