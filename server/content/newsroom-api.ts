import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { apiPath, assertCursor } from '../../src/api-paths';
import type { Article, ArticleWithTeasers, FrontPage, Headline, SectionPage, TagPage } from '../../src/content';
import { clampPageSize, latestListSize, mostReadSize, sectionPageSize } from '../../src/content';
import { articleIdPattern, isSectionSlug } from '../../src/sections';
import { isTagSlug } from '../../src/tags';
import type { Config } from '../config';
import { KioskError } from '../errors';
import { log } from '../log';
import { deepFreeze } from './freeze';
import { parseFrontPage, parseLatest, parsePublishedArticle, parseSectionPage, parseTagPage, ShapeError } from './newsroom-shapes';
import type { ContentSource } from './source';
import { StaleCache } from './stale-cache';

// Content from an existing newsroom API instead of the SQLite store. It speaks Kiosk's own
// /api shapes (`{base}/front`, `{base}/sections/:slug`, `{base}/articles/:id`, `{base}/latest`),
// so one Kiosk can be another's newsroom API. Every exchange has one deadline (connect, headers
// and body together), answers are size-bounded and checked field by field, and recent good
// answers stand in when the API hangs, resets, fails or talks nonsense. With nothing recent
// enough to stand in, the answer is a KioskError('contentUnavailable'): a short-lived 503.

export interface NewsroomApiOptions {
  /** The API's base URL, without a trailing slash: for another Kiosk, `http://host:port/api`. */
  baseUrl: string;
  timeoutMs: number;
  /** Answers younger than this are used without asking again. */
  freshMs: number;
  /** Answers younger than this stand in when the API fails. */
  staleMs: number;
  maxEntries: number;
  maxBytes: number;
  /** After the API itself fails (no answer, a reset, a 5xx), how long to stop asking it. */
  backoffMs?: number;
  /** Milliseconds on a monotonic clock, for the fresh, stale and backoff times (tests pass their own). */
  now?: () => number;
}

export function newsroomApiOptions(
  config: Pick<Config, 'contentTimeoutMs' | 'contentFreshS' | 'contentStaleS' | 'contentCacheEntries' | 'contentCacheMb'> & { contentApiUrl: string },
): NewsroomApiOptions {
  return {
    baseUrl: config.contentApiUrl,
    timeoutMs: config.contentTimeoutMs,
    freshMs: config.contentFreshS * 1000,
    staleMs: config.contentStaleS * 1000,
    maxEntries: config.contentCacheEntries,
    maxBytes: config.contentCacheMb * 1024 * 1024,
  };
}

export interface NewsroomApiSource extends ContentSource {
  cacheStats(): { entries: number; bytes: number };
}

/** Kiosk's largest answer is an article of at most 512 KB (the ingest limit); this is four times that. */
export const maxAnswerBytes = 2 * 1024 * 1024;
const defaultBackoffMs = 1_000;
/** Below the 5 s keep-alive of a default Node server, so an idle socket is not reused as the far side closes it. */
const idleSocketMs = 4_000;
const logEveryMs = 1_000;

type Failure = 'timeout' | 'connection' | 'status' | 'not-json' | 'too-large';

class UpstreamError extends Error {
  override name = 'UpstreamError';
  constructor(
    readonly reason: Failure,
    message: string,
  ) {
    super(message);
  }
}

/** The API itself is in trouble (as opposed to one bad answer): stop asking it for a moment. */
function isOutage(error: unknown): boolean {
  return error instanceof UpstreamError && (error.reason === 'timeout' || error.reason === 'connection' || error.reason === 'status');
}

type Answer = { status: 200; body: unknown; bytes: number } | { status: 404 };

/**
 * One GET within `timeoutMs` from start to last byte. A keep-alive socket the far side closed
 * as it was reused (a reset before any answer) is retried once on a new one, inside the same deadline.
 */
function getJson(url: URL, agent: http.Agent, timeoutMs: number): Promise<Answer> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    let request: http.ClientRequest | undefined;
    const timer = setTimeout(() => finish(new UpstreamError('timeout', `no complete answer within ${timeoutMs} ms`)), timeoutMs);
    function finish(error: Error | null, answer?: Answer) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        request?.destroy();
        reject(error);
      } else {
        resolve(answer!);
      }
    }
    function send(retried: boolean) {
      let answered = false;
      const sent = transport.get(url, { agent, headers: { Accept: 'application/json', 'User-Agent': 'Kiosk' } }, (response) => {
        answered = true;
        read(response);
      });
      request = sent;
      sent.on('error', (error: NodeJS.ErrnoException) => {
        if (!answered && !retried && !settled && sent.reusedSocket && error.code === 'ECONNRESET') send(true);
        else finish(new UpstreamError('connection', error.message));
      });
    }
    function read(response: http.IncomingMessage) {
      const status = response.statusCode ?? 0;
      if (Number(response.headers['content-length']) > maxAnswerBytes) {
        finish(new UpstreamError('too-large', `a ${response.headers['content-length']}-byte answer`));
        return;
      }
      const chunks: Buffer[] = [];
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > maxAnswerBytes) finish(new UpstreamError('too-large', `an answer over ${maxAnswerBytes} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', (error) => finish(new UpstreamError('connection', error.message)));
      response.on('close', () => {
        if (!response.complete) finish(new UpstreamError('connection', 'the connection closed before the answer was complete'));
      });
      response.on('end', () => {
        if (status === 404) return finish(null, { status: 404 });
        if (status !== 200) return finish(new UpstreamError('status', `answered ${status}`));
        const type = response.headers['content-type'] ?? '';
        if (!/^application\/json\b/i.test(type)) return finish(new UpstreamError('not-json', `answered Content-Type "${type.slice(0, 60)}"`));
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks, bytes).toString('utf8'));
        } catch {
          return finish(new UpstreamError('not-json', 'answered a body that is not JSON'));
        }
        finish(null, { status: 200, body, bytes });
      });
    }
    send(false);
  });
}

export function openNewsroomApi(options: NewsroomApiOptions): NewsroomApiSource {
  const base = new URL(`${options.baseUrl}/`);
  const agent = new (base.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: 32, timeout: idleSocketMs });
  const cache = new StaleCache<unknown>({ maxEntries: options.maxEntries, maxBytes: options.maxBytes });
  // One request per path at a time: every reader waiting for the same page waits on the same answer.
  const pending = new Map<string, Promise<unknown>>();
  const backoffMs = options.backoffMs ?? defaultBackoffMs;
  const clock = options.now ?? (() => performance.now());
  let outageUntil = 0;
  let failuresUnlogged = 0;
  let loggedAt = -Infinity;

  function reportFailure(path: string, error: Error, served: 'stale' | 'unavailable', ageMs?: number) {
    failuresUnlogged += 1;
    const now = clock();
    // At most one line a second however many requests fail: an outage must not flood the logs.
    if (now - loggedAt < logEveryMs) return;
    log.warn('newsroom API failed', {
      path,
      reason: error instanceof UpstreamError ? error.reason : 'shape',
      error: error.message,
      served,
      staleAgeS: ageMs === undefined ? undefined : Math.round(ageMs / 1000),
      failures: failuresUnlogged,
    });
    loggedAt = now;
    failuresUnlogged = 0;
  }

  /** The recent copy, or the 503. */
  function standIn<T>(path: string, error: Error | null): T {
    const entry = cache.get(path);
    const ageMs = entry === undefined ? undefined : clock() - entry.storedAtMs;
    if (entry !== undefined && ageMs! <= options.staleMs) {
      if (error) reportFailure(path, error, 'stale', ageMs);
      return entry.value as T;
    }
    if (error) reportFailure(path, error, 'unavailable');
    throw new KioskError('contentUnavailable');
  }

  async function ask<T>(path: string, parse: (body: unknown) => T | null): Promise<T | null> {
    let answer: Answer;
    let value: T | null;
    try {
      answer = await getJson(new URL(path, base), agent, options.timeoutMs);
      value = answer.status === 404 ? null : parse(answer.body);
    } catch (error) {
      if (!(error instanceof UpstreamError || error instanceof ShapeError)) throw error;
      if (isOutage(error)) outageUntil = clock() + backoffMs;
      return standIn<T>(path, error);
    }
    outageUntil = 0;
    // Not-found answers are not kept: a crawl of unknown ids cannot push real answers out.
    if (value !== null && answer.status === 200) cache.set(path, deepFreeze(value), answer.bytes, clock());
    return value;
  }

  function load<T>(path: string, parse: (body: unknown) => T | null): Promise<T | null> {
    const now = clock();
    const entry = cache.get(path);
    if (entry !== undefined && now - entry.storedAtMs < options.freshMs) return Promise.resolve(entry.value as T);
    if (now < outageUntil) {
      try {
        return Promise.resolve(standIn<T>(path, null));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    let inFlight = pending.get(path) as Promise<T | null> | undefined;
    if (inFlight === undefined) {
      inFlight = ask(path, parse).finally(() => pending.delete(path));
      pending.set(path, inFlight);
    }
    return inFlight;
  }

  async function required<T>(path: string, parse: (body: unknown) => T): Promise<T> {
    const value = await load(path, parse);
    // A 404 for the front page or the latest list is not "nothing there": the API is wrong.
    if (value === null) return standIn<T>(path, new UpstreamError('status', 'answered 404'));
    return value;
  }

  async function articleWithTeasers(id: string): Promise<ArticleWithTeasers | null> {
    // Only a well-formed id is ever put into the API's URL.
    if (!articleIdPattern.test(id)) return null;
    return load(apiPath.article(id), (body) => parsePublishedArticle(body, id));
  }

  return {
    frontPage: (): Promise<FrontPage> => required(apiPath.front(), parseFrontPage),

    async section(slug, options = {}): Promise<SectionPage | null> {
      const { cursor } = options;
      assertCursor(cursor);
      if (!isSectionSlug(slug)) return null;
      const limit = clampPageSize(options.limit, sectionPageSize);
      return load(apiPath.section(slug, { limit, cursor }), (body) => parseSectionPage(body, slug, limit));
    },

    async article(id): Promise<Article | null> {
      return (await articleWithTeasers(id))?.article ?? null;
    },

    articleWithTeasers,

    async tag(slug, options = {}): Promise<TagPage | null> {
      const { cursor } = options;
      assertCursor(cursor);
      // Only a well-formed tag is ever put into the API's URL.
      if (!isTagSlug(slug)) return null;
      const limit = clampPageSize(options.limit, sectionPageSize);
      return load(apiPath.tag(slug, { limit, cursor }), (body) => parseTagPage(body, slug, limit));
    },

    async mostRead(limit = mostReadSize): Promise<Headline[]> {
      const n = clampPageSize(limit, mostReadSize);
      return required(apiPath.mostRead(n), (body) => parseLatest(body, n, 'mostRead'));
    },

    async latest(limit = latestListSize): Promise<Headline[]> {
      const n = clampPageSize(limit, latestListSize);
      return required(apiPath.latest(n), (body) => parseLatest(body, n));
    },

    async count(): Promise<number> {
      throw new Error('the newsroom API does not say how many articles it has');
    },

    async articleAnyStatus(): Promise<Article | null> {
      throw new Error('drafts are not available from the newsroom API: previews are off with CONTENT_API_URL');
    },

    // The newsroom counts its own readers and keeps its own mailing list.
    views: null,
    signups: null,

    cacheStats: () => ({ entries: cache.size, bytes: cache.bytes }),

    close() {
      agent.destroy();
      cache.clear();
    },
  };
}
