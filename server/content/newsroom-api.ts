import http from 'node:http';
import https from 'node:https';
import { apiPath } from '../../src/api-paths';
import { ChangeHub } from './changes';
import { parseFrontPage, parseLatest, parsePublishedArticle, parseSectionPage, parseTagPage } from './newsroom-shapes';
import type { PageStore } from './store';

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

export function openNewsroomApi(options: NewsroomApiOptions): PageStore {
  const base = new URL(`${options.baseUrl}/`);
  const agent = new (base.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: 32, timeout: idleSocketMs });

  /** The answer, parsed and checked; null for a 404. Only paths built by apiPath from checked ids and slugs get here. */
  async function get<T>(path: string, parse: (body: unknown) => T | null): Promise<T | null> {
    const answer = await getJson(new URL(path, base), agent, options.timeoutMs);
    return answer.status === 404 ? null : parse(answer.body);
  }

  /** A 404 for the front page or the latest list is not "nothing there": the API is wrong. */
  async function required<T>(path: string, parse: (body: unknown) => T): Promise<T> {
    const value = await get(path, parse);
    if (value === null) throw new UpstreamError('status', 'answered 404');
    return value;
  }

  return {
    kind: 'pages',
    name: 'newsroom API',
    changes: new ChangeHub(),
    isOutage,
    frontPage: () => required(apiPath.front(), parseFrontPage),
    section: (slug, limit, cursor) => get(apiPath.section(slug, { limit, cursor }), (body) => parseSectionPage(body, slug, limit)),
    tag: (slug, limit, cursor) => get(apiPath.tag(slug, { limit, cursor }), (body) => parseTagPage(body, slug, limit)),
    latest: (limit) => required(apiPath.latest(limit), (body) => parseLatest(body, limit)),
    mostRead: (limit) => required(apiPath.mostRead(limit), (body) => parseLatest(body, limit, 'mostRead')),
    articleWithTeasers: (id) => get(apiPath.article(id), (body) => parsePublishedArticle(body, id)),
    close() {
      agent.destroy();
    },
  };
}
