import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { articlePath } from '../src/content';
import { articleIdPattern } from '../src/sections';
import { answerJson } from './answer';
import { cacheControl } from './cache-policy';
import { ingestSchemas, parseWith } from '../src/content-schema';
import type { Article } from '../src/content';
import type { ArticleWriter, WriteOrder, WriteResult } from './content/source';
import { KioskError } from './errors';
import { ingestMaxBodyBytes, parseIngestedArticle } from './ingest-schema';
import { log } from './log';
import { strictJsonBody } from './strict-json';

// The CMS pushes articles here: PUT creates or replaces one (draft or published), DELETE takes
// it off the site. Authorised by one bearer token; the body is parsed only after that.
// Every write names the CMS's own last-modified time of the story (modifiedAt), and the store
// refuses one older than what it holds (409), in the write's transaction: pushes may arrive in
// any order, twice, or from two workers at once, and the newest version still wins. The answer's
// ETag is the stored modifiedAt; If-Match makes a write conditional on it (412 otherwise).

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

/** The ETag of a stored version: its modifiedAt, quoted (ISO 8601 is all etagc characters). */
function etagOf(modifiedAt: string): string {
  return `"${modifiedAt}"`;
}

/**
 * If-Match as the stored modifiedAt values it names; undefined for "*" or no header, which let
 * any write through. Weak tags never match: If-Match compares strongly (RFC 9110, 13.1.1).
 */
function ifMatchOf(req: Request): readonly string[] | undefined {
  const header = req.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const tags: string[] = [];
  const list = /\s*(W\/)?"([\x21\x23-\x7e]*)"\s*(?:,|$)/y;
  while (list.lastIndex < header.length) {
    const match = list.exec(header);
    if (!match) throw new KioskError('badRequest', 'If-Match must be "*" or a list of quoted ETags, as this address answers them.');
    if (match[1] === undefined) tags.push(match[2]!);
  }
  return tags;
}

/** A refused or conditional write, answered with what is stored; otherwise the stored version's ETag is set. */
function settle(
  res: Response,
  id: string,
  modifiedAt: string,
  result: WriteResult,
): Exclude<WriteResult, { outcome: 'stale' | 'preconditionFailed' | 'notFound' }> {
  if (result.outcome === 'notFound') throw new KioskError('notFound', `There is no article ${id}.`);
  if (result.outcome === 'preconditionFailed') {
    if (result.modifiedAt === null) throw new KioskError('preconditionFailed', `There is no article ${id}, and If-Match names a version of it.`);
    res.set('ETag', etagOf(result.modifiedAt));
    throw new KioskError(
      'preconditionFailed',
      `Article ${id} is stored as modified at ${result.modifiedAt} (ETag ${etagOf(result.modifiedAt)}), which If-Match does not name; nothing was changed.`,
    );
  }
  if (result.outcome === 'stale') {
    res.set('ETag', etagOf(result.modifiedAt));
    const why =
      Date.parse(result.modifiedAt) === Date.parse(modifiedAt)
        ? 'with other content at the same time: a changed story needs a later modifiedAt'
        : `later than this request's modifiedAt ${modifiedAt}`;
    throw new KioskError('conflict', `Article ${id} is stored as modified at ${result.modifiedAt}, ${why}; nothing was changed.`);
  }
  res.set('ETag', etagOf(result.modifiedAt));
  return result;
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
    const ifMatch = ifMatchOf(req);
    // The ingest profile carries the CMS's modifiedAt beside the article's own fields.
    const { modifiedAt, ...article } = parseIngestedArticle(id, req.body, new Date()) as Article & Pick<WriteOrder, 'modifiedAt'>;
    const order: WriteOrder = ifMatch === undefined ? { modifiedAt } : { modifiedAt, ifMatch };
    const result = settle(res, id, modifiedAt, await writer().upsert(article, order));
    log.info('article ingested', { id, outcome: result.outcome, status: article.status, modifiedAt });
    answerJson(
      req,
      res,
      result.outcome === 'created' ? 201 : 200,
      {},
      {
        id,
        outcome: result.outcome,
        status: article.status,
        path: articlePath(article),
        modifiedAt: result.modifiedAt,
        updatedAt: result.updatedAt,
      },
    );
  });

  // DELETE's modifiedAt is a query parameter: a DELETE body has no defined meaning (RFC 9110,
  // 9.3.5) and some clients and proxies drop it.
  router.delete('/articles/:id', async (req, res) => {
    const id = articleId(req);
    const ifMatch = ifMatchOf(req);
    const { modifiedAt } = parseWith(
      ingestSchemas.unpublishQuery,
      { ...(req.query as object) },
      'The query',
      (message) => new KioskError('badRequest', message),
    );
    const order: WriteOrder = ifMatch === undefined ? { modifiedAt } : { modifiedAt, ifMatch };
    const result = settle(res, id, modifiedAt, await writer().unpublish(id, new Date().toISOString(), order));
    log.info('article unpublished', { id, outcome: result.outcome, modifiedAt });
    answerJson(
      req,
      res,
      200,
      {},
      {
        id,
        outcome: result.outcome === 'unchanged' ? 'unchanged' : 'unpublished',
        status: 'draft',
        modifiedAt: result.modifiedAt,
        updatedAt: result.updatedAt,
        previewsRevokedBefore: result.previewsRevokedBefore,
      },
    );
  });

  router.all('/articles/:id', (_req, res) => {
    res.set('Allow', 'PUT, DELETE');
    throw new KioskError('methodNotAllowed', 'This address answers PUT and DELETE.');
  });

  return router;
}
