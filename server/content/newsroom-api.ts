import http from 'node:http';
import https from 'node:https';
import { apiPath } from '../../src/api-paths';
import { maxSectionPageSize, type SectionPage, type TagPage, type Teaser } from '../../src/content';
import { sections, type SectionSlug } from '../../src/sections';
import { parseFrontPage, parseLatest, parsePublishedArticle, parseSectionPage, parseTagPage } from './newsroom-shapes';
import type { ArticleList, ArticleStore } from './store';

type ListPage = Pick<SectionPage & TagPage, 'items' | 'nextCursor'>;

// Content from an existing newsroom API instead of a database. It speaks Kiosk's own /api
// shapes (`{base}/front`, `{base}/sections/:slug`, `{base}/articles/:id`, `{base}/latest`), so
// one Kiosk can be another's newsroom API. Every exchange has one deadline (connect, headers
// and body together), answers are size-bounded and checked field by field. It cannot say what
// changed: the content cache keeps its answers for CONTENT_FRESH_S, and lets a recent one stand
// in when the API hangs, resets, fails or talks nonsense (server/content/cache.ts).

export interface NewsroomApiOptions {
  /** The API's base URL, without a trailing slash: for another Kiosk, `http://host:port/api`. */
  baseUrl: string;
  timeoutMs: number;
}

/** Kiosk's largest answer is an article of at most 512 KB (the ingest limit); this is four times that. */
export const maxAnswerBytes = 2 * 1024 * 1024;
/** Below the 5 s keep-alive of a default Node server, so an idle socket is not reused as the far side closes it. */
const idleSocketMs = 4_000;

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

/** Reads an answer whole, within the size bound, and settles the exchange with it (finish). */
function readAnswer(response: http.IncomingMessage, finish: (error: Error | null, answer?: Answer) => void): void {
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
        readAnswer(response, finish);
      });
      request = sent;
      sent.on('error', (error: NodeJS.ErrnoException) => {
        if (!answered && !retried && !settled && sent.reusedSocket && error.code === 'ECONNRESET') send(true);
        else finish(new UpstreamError('connection', error.message));
      });
    }
    send(false);
  });
}

/** The most a list's page may ask of Kiosk's /api (its clamp): longer lists are read a page at a time. */
const apiPageSize = maxSectionPageSize;
const noDrafts = 'drafts are not available from the newsroom API: previews are off with CONTENT_API_URL';

type Get = <T>(path: string, parse: (body: unknown) => T | null) => Promise<T | null>;

/** One keep-alive agent's GETs of the API: the answer parsed and checked, null for a 404. */
function newsroomClient(options: NewsroomApiOptions): { get: Get; required: <T>(path: string, parse: (body: unknown) => T) => Promise<T>; close(): void } {
  const base = new URL(`${options.baseUrl}/`);
  const agent = new (base.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: 32, timeout: idleSocketMs });

  /** Only paths built by apiPath from checked ids and slugs get here. */
  async function get<T>(path: string, parse: (body: unknown) => T | null): Promise<T | null> {
    const answer = await getJson(new URL(path, base), agent, options.timeoutMs);
    return answer.status === 404 ? null : parse(answer.body);
  }

  return {
    get,
    /** A 404 for the front page or the latest list is not "nothing there": the API is wrong. */
    async required<T>(path: string, parse: (body: unknown) => T): Promise<T> {
      const value = await get(path, parse);
      if (value === null) throw new UpstreamError('status', 'answered 404');
      return value;
    },
    close: () => agent.destroy(),
  };
}

type SectionRead = (slug: SectionSlug, limit: number, before: string | undefined) => Promise<Teaser[]>;

/** The store's lists from the API's pages: a section's or a tag's a page at a time, 'all' from the sections'. */
function newsroomLists(get: Get): Pick<ArticleStore, 'teasers' | 'newest'> {
  /** One page of a section's or a tag's list; an unknown one (404) has none. */
  async function page(list: { section: SectionSlug } | { tag: string }, limit: number, cursor: string | undefined): Promise<ListPage> {
    const found =
      'section' in list
        ? await get(apiPath.section(list.section, { limit, cursor }), (body) => parseSectionPage(body, list.section, limit))
        : await get(apiPath.tag(list.tag, { limit, cursor }), (body) => parseTagPage(body, list.tag, limit));
    return found ?? { items: [], nextCursor: null };
  }

  /** A section's or a tag's newest `limit` older than `before`, a page of the API's at a time. */
  async function listTeasers(list: { section: SectionSlug } | { tag: string }, limit: number, before: string | undefined): Promise<Teaser[]> {
    const teasers: Teaser[] = [];
    let cursor = before;
    while (teasers.length < limit) {
      const { items, nextCursor } = await page(list, Math.min(apiPageSize, limit - teasers.length), cursor);
      teasers.push(...items);
      if (nextCursor === null || items.length === 0) break;
      cursor = nextCursor;
    }
    return teasers;
  }

  /** Reads each section's list once however many lists of one call need it. */
  function sectionReader(): SectionRead {
    const read = new Map<string, Promise<Teaser[]>>();
    return (slug, limit, before) => {
      const key = `${slug}:${limit}:${before ?? ''}`;
      let found = read.get(key);
      if (found === undefined) read.set(key, (found = listTeasers({ section: slug }, limit, before)));
      return found;
    };
  }

  /**
   * The newest of every article: /api has no such list of teasers, but each article is in
   * exactly one section, so the newest of all are the newest of the sections' newest.
   */
  async function newestOfAll(limit: number, before: string | undefined, sectionRead: SectionRead): Promise<Teaser[]> {
    const bySection = await Promise.all(sections.map(({ slug }) => sectionRead(slug, limit, before)));
    return bySection
      .flat()
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, limit);
  }

  function teasers(list: ArticleList, limit: number, before: string | undefined, sectionRead = sectionReader()): Promise<Teaser[]> {
    if (list === 'all') return newestOfAll(limit, before, sectionRead);
    if ('section' in list) return sectionRead(list.section, limit, before);
    return listTeasers(list, limit, before);
  }

  return {
    teasers: (list, limit, before) => teasers(list, limit, before),
    newest(lists, limit) {
      const sectionRead = sectionReader();
      return Promise.all(lists.map((list) => teasers(list, limit, undefined, sectionRead)));
    },
  };
}

/**
 * The store contract from another Kiosk's /api: lists (newsroomLists), articles, the trending
 * tags (the front page's), the most-read ranking (its own). It has no drafts, no count and no
 * change feed: those reject or are null, and the cache keeps its answers for CONTENT_FRESH_S.
 */
export function openNewsroomApi(options: NewsroomApiOptions): ArticleStore {
  const { get, required, close } = newsroomClient(options);
  return {
    name: 'newsroom API',
    changes: null,
    isOutage,
    ...newsroomLists(get),
    article: async (id) => (await get(apiPath.article(id), (body) => parsePublishedArticle(body, id)))?.article ?? null,
    articleAnyStatus: () => Promise.reject(new Error(noDrafts)),
    previewsRevokedBefore: () => Promise.reject(new Error(noDrafts)),
    // The API does not say how far back its trending tags were counted.
    trendingTags: async (_window, size) => ({ tags: (await required(apiPath.front(), parseFrontPage)).trendingTags.slice(0, size), oldestId: null }),
    count: () => Promise.reject(new Error('the newsroom API does not say how many articles it has')),
    mostRead: (limit) => {
      const n = Math.min(apiPageSize, limit);
      return required(apiPath.mostRead(n), (body) => parseLatest(body, n, 'mostRead'));
    },
    close,
  };
}
