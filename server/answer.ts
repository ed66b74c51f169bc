import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentTypes, type AnswerPolicy } from './response-policy';
import { securityHeaders } from './security-headers';
import { utf8 } from './utf8';

// The last stage of every request: `answer` is the one function that writes an answer, and
// `answerError` (server/answer-error.ts) the one that answers an error, through it. Every answer
// carries the common headers (the security headers: no sniffing, no framing, a sober referrer);
// an answer's own headers come after them, so one that needs a stricter value (a preview's Referrer-Policy) sets it. An
// answer built once at start-up (the shell, the shed 503) is a `Prebuilt`: its header list
// already holds the common headers and Content-Length, and `answer` writes it as it is.

export type Headers = Readonly<Record<string, string>>;

/** An answer made once and written many times: status, flat [name, value, …] header list, body. */
export interface Prebuilt {
  readonly status: number;
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** An answer built once from its policy: the header list holds the policy's headers (the common ones among them), `extra`, and Content-Length. */
export function prebuilt(status: number, policy: AnswerPolicy, body: string | Buffer, extra: Headers = {}): Prebuilt {
  const bytes = typeof body === 'string' ? utf8(body) : body;
  const headers: Record<string, string> = { ...securityHeaders, ...policy.headers, ...extra, 'Content-Length': String(bytes.length) };
  if (policy.contentType !== null) headers['Content-Type'] = policy.contentType;
  return { status, headers: Object.entries(headers).flat(), body: bytes };
}

/**
 * Writes a complete answer on the Node response: the common headers, Content-Length, no body
 * for HEAD. A text body is encoded once, here (server/utf8.ts): measuring its byte length and
 * then writing the string had Node walk a 35–55 KB page twice (7% of a busy worker's time each,
 * in a CPU profile). Headers a handler set earlier (res.setHeader) are kept under these.
 */
export function answer(req: IncomingMessage, res: ServerResponse, status: number, headers: Headers | null, body: string | Buffer | Prebuilt): void {
  if (headers === null) {
    const built = body as Prebuilt;
    res.writeHead(built.status, built.headers as string[]);
    res.end(req.method === 'HEAD' ? undefined : built.body);
    return;
  }
  const bytes = typeof body === 'string' ? utf8(body) : (body as Buffer);
  // 204 and 304 have no body, and a 304's Content-Length would describe the representation.
  const bodiless = status === 204 || status === 304;
  res.writeHead(status, bodiless ? { ...securityHeaders, ...headers } : { ...securityHeaders, ...headers, 'Content-Length': bytes.length });
  res.end(req.method === 'HEAD' || bodiless ? undefined : bytes);
}

const empty = Buffer.alloc(0);

/** A prebuilt answer, as it was made. */
export function answerPrebuilt(req: IncomingMessage, res: ServerResponse, built: Prebuilt): void {
  answer(req, res, built.status, null, built);
}

/**
 * A JSON answer. A successful read carries a weak ETag of its body, and a request that already
 * holds it gets a 304 (CloudFront revalidates its copies with it).
 */
export function answerJson(req: IncomingMessage, res: ServerResponse, status: number, headers: Headers, value: unknown): void {
  const bytes = utf8(JSON.stringify(value));
  if (status === 200 && (req.method === 'GET' || req.method === 'HEAD')) {
    const etag = `W/"${bytes.length.toString(16)}-${createHash('sha1').update(bytes).digest('base64').slice(0, 27)}"`;
    const ifNoneMatch = req.headers['if-none-match'];
    if (ifNoneMatch !== undefined && ifNoneMatch.split(/\s*,\s*/).some((tag) => tag === etag || tag === '*' || tag === etag.slice(2))) {
      answer(req, res, 304, { ...headers, ETag: etag }, empty);
      return;
    }
    answer(req, res, status, { ...headers, ETag: etag, 'Content-Type': contentTypes.json }, bytes);
    return;
  }
  answer(req, res, status, { ...headers, 'Content-Type': contentTypes.json }, bytes);
}

/** An answer with no body (a beacon's 204, its 429). */
export function answerEmpty(req: IncomingMessage, res: ServerResponse, status: number, headers: Headers): void {
  answer(req, res, status, headers, empty);
}
