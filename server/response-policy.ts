import type { BodyFormat } from '../src/request-kinds';
import { cacheControl, shellCacheControl } from './cache-policy';
import { errors } from './errors';
import { contentSecurityPolicy, securityHeaders } from './security-headers';

// The response policy: for each class of answer, the headers it carries (Cache-Control from
// server/cache-policy.ts, X-Render-Mode, the security headers) and its body's format. Node's
// answers are written with it (server/answer.ts), and Nginx's own answers, the fallback
// locations that answer when no worker can, are rendered from it (scripts/nginx/render.ts), so
// a fallback and the worker's answer in its place carry the same headers.

export const contentTypes = {
  html: 'text/html; charset=utf-8',
  json: 'application/json; charset=utf-8',
  text: 'text/plain; charset=utf-8',
} as const satisfies Record<BodyFormat | 'text', string>;

/** Who answered, in X-Render-Mode (and in Nginx's access log). */
export type RenderMode = 'ssr' | 'shell' | 'shed' | 'last-good';

/** An answer's policy: the type of its body (none for an empty one) and its headers, the security headers among them. */
export interface AnswerPolicy {
  readonly contentType: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

/** The JSON error body every client reads: the registry's code and message. */
export function errorBody(error: { code: string; message: string }): string {
  return JSON.stringify({ error: { code: error.code, message: error.message } });
}

/** Error pages and message pages carry no scripts at all. */
export const errorPageHeaders = { 'Content-Security-Policy': contentSecurityPolicy('none') } as const;

/** A worker past its limit (Node's shed) or none with room (Nginx's): ask again after `retryAfterS`; JSON for the API. */
export function busyPolicy(body: BodyFormat | 'text', retryAfterS: number, renderMode: RenderMode | null = 'shed'): AnswerPolicy {
  return {
    contentType: contentTypes[body],
    headers: {
      ...securityHeaders,
      'Retry-After': String(retryAfterS),
      'Cache-Control': cacheControl.noStore,
      ...(renderMode === null ? {} : { 'X-Render-Mode': renderMode }),
    },
  };
}

/** The body of the API's busy answer, from Node or Nginx: the registry's "unavailable". */
export const busyJsonBody = errorBody(errors.unavailable);

/** The overload shell, from a worker (server/shell.ts) or from Nginx's copy on disk. */
export function shellPolicy(sMaxAgeS: number): AnswerPolicy {
  return {
    contentType: contentTypes.html,
    headers: {
      ...securityHeaders,
      'Cache-Control': shellCacheControl(sMaxAgeS),
      'X-Render-Mode': 'shell',
      // Cached and shared: no nonce, so the policy trusts the site's own scripts instead.
      'Content-Security-Policy': contentSecurityPolicy('self'),
    },
  };
}

/**
 * A page's last good copy, answered by Nginx from disk when every worker is full
 * (server/last-good/): the shell's short edge lifetime and its policy, 'self' and no nonce (the
 * copy was written with its nonces taken out; its scripts are the site's own files and its state
 * a JSON block no policy runs), so no stale nonce is ever served.
 */
export function lastGoodPolicy(sMaxAgeS: number): AnswerPolicy {
  const shell = shellPolicy(sMaxAgeS);
  return { contentType: shell.contentType, headers: { ...shell.headers, 'X-Render-Mode': 'last-good' } };
}

/** One client's share of a write path is used up: a 429 saying when to come back; a page for the form, nothing for a beacon. */
export function limitedPolicy(body: 'html' | null, retryAfterS: number): AnswerPolicy {
  return {
    contentType: body === null ? null : contentTypes.html,
    headers: {
      ...securityHeaders,
      ...(body === null ? {} : errorPageHeaders),
      'Retry-After': String(retryAfterS),
      'Cache-Control': cacheControl.noStore,
    },
  };
}

/** An error answer that no cache keeps: the API's JSON 413 and its kind. */
export function privateErrorPolicy(body: BodyFormat): AnswerPolicy {
  return {
    contentType: contentTypes[body],
    headers: { ...securityHeaders, ...(body === 'html' ? errorPageHeaders : {}), 'Cache-Control': cacheControl.noStore },
  };
}

/** Files with hashed names: a year, immutable. */
export const assetPolicy: AnswerPolicy = { contentType: null, headers: { ...securityHeaders, 'Cache-Control': cacheControl.assets } };
