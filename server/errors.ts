import { cacheControl } from './cache-policy';
import { ContentUnavailable } from './content/failure';

// Every error a reader or API client can see, in one place. The message is what is shown;
// internal details are logged, never sent.
export const errors = {
  badRequest: { status: 400, code: 'bad_request', message: 'The request is malformed.' },
  unauthorized: { status: 401, code: 'unauthorized', message: 'This needs credentials, and none or wrong ones were given.' },
  forbidden: { status: 403, code: 'forbidden', message: 'This link is not valid.' },
  // A browser said the request came from another site's page (a form or a script there).
  crossSite: { status: 403, code: 'cross_site', message: 'This can only be sent from a page of this site.' },
  notFound: { status: 404, code: 'not_found', message: 'There is nothing at this address.' },
  methodNotAllowed: { status: 405, code: 'method_not_allowed', message: 'This address only answers GET and HEAD.' },
  // A write older than what is stored (the CMS's modifiedAt): nothing was changed; the message says what is stored.
  conflict: { status: 409, code: 'conflict', message: 'A newer version is stored; nothing was changed.' },
  // If-Match named a version other than the stored one: nothing was changed.
  preconditionFailed: { status: 412, code: 'precondition_failed', message: 'The stored version is not the one If-Match names; nothing was changed.' },
  payloadTooLarge: { status: 413, code: 'payload_too_large', message: 'The request body is too large.' },
  unsupportedMediaType: { status: 415, code: 'unsupported_media_type', message: 'Send the body as application/json.' },
  // One client's share of a write path is used up; the answer's Retry-After says when it is back.
  tooManyRequests: { status: 429, code: 'too_many_requests', message: 'Too many requests from your connection. Please try again later.' },
  headersTooLarge: { status: 431, code: 'headers_too_large', message: 'The request headers are too large.' },
  internal: { status: 500, code: 'internal', message: 'Something went wrong on our side. Please try again shortly.' },
  // Busy for a moment (previews at their cap): ask again soon.
  unavailable: { status: 503, code: 'unavailable', message: 'The service is busy. Please try again shortly.', retryAfterS: 2 },
  // The content store (database or newsroom API) failed and no recent copy was at hand
  // (ContentUnavailable): short-lived, so a CDN serves its stale copy meanwhile
  // (stale-if-error) and readers get the page back within seconds.
  // Its Cache-Control lets a CDN keep it as long as its Retry-After.
  contentUnavailable: {
    status: 503,
    code: 'content_unavailable',
    message: 'The news could not be fetched just now. Please try again in a few seconds.',
    retryAfterS: 5,
  },
} as const;

export type ErrorKind = keyof typeof errors;

export class KioskError extends Error {
  override name = 'KioskError';
  readonly kind: ErrorKind;
  readonly status: number;
  readonly code: string;

  /** `detail` replaces the generic message; keep it safe to show to anyone. */
  constructor(kind: ErrorKind, detail?: string) {
    super(detail ?? errors[kind].message);
    this.kind = kind;
    this.status = errors[kind].status;
    this.code = errors[kind].code;
  }
}

/**
 * Maps anything thrown to a registry entry. Errors from body parsers and the router carry a
 * 4xx `status`; those keep it. Everything else is a 500 whose message is never shown.
 */
export function classify(error: unknown): { status: number; code: string; message: string; internal: boolean } {
  if (error instanceof KioskError) {
    return { status: error.status, code: error.code, message: error.message, internal: false };
  }
  // Its message names the store and the key for the logs; readers get the registry's.
  if (error instanceof ContentUnavailable) return { ...errors.contentUnavailable, internal: false };
  const status = typeof error === 'object' && error !== null ? (error as { status?: unknown }).status : undefined;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // body-parser's own kinds: say what was wrong with the body, never echo it.
    if ((error as { type?: unknown }).type === 'entity.parse.failed') {
      return { status: 400, code: errors.badRequest.code, message: 'The body is not valid JSON.', internal: false };
    }
    const known = Object.values(errors).find((e) => e.status === status);
    return {
      status,
      code: known?.code ?? 'bad_request',
      message: known?.message ?? errors.badRequest.message,
      internal: false,
    };
  }
  return { ...errors.internal, internal: true };
}

/** When to ask again after this error, from the registry; null if the registry says nothing. */
export function retryAfterS(code: string): number | null {
  const entry = Object.values(errors).find((e) => e.code === code);
  return entry !== undefined && 'retryAfterS' in entry ? entry.retryAfterS : null;
}

/** The headers of an error answer, page or JSON: how long caches may keep it, and when to retry. */
export function errorHeaders(answer: { status: number; code: string }): Record<string, string> {
  const retry = retryAfterS(answer.code);
  const cache =
    answer.code === errors.contentUnavailable.code ? cacheControl.contentUnavailable : answer.status === 404 ? cacheControl.notFound : cacheControl.noStore;
  return retry === null ? { 'Cache-Control': cache } : { 'Cache-Control': cache, 'Retry-After': String(retry) };
}
