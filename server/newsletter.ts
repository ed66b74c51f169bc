import express, { type Request, type Response } from 'express';
import { cacheControl } from './cache-policy';
import { clientAddress, clientKey } from './client-address';
import { StoreBusy, type SignupStore } from './content/source';
import { KioskError } from './errors';
import { describeError, log } from './log';
import { answer } from './answer';
import { errorPageHeaders } from './response-policy';
import { PerClientLimit } from './per-client-limit';
import { renderMessagePage, type RenderDeps } from './render';
import { isCrossSite } from './same-site';
import { isNewsletterId, type NewsletterId } from '../src/newsletters';

// The newsletter sign-up: the article page's form posts here. The address is checked and
// recorded as unconfirmed; the newsroom's mailing tool sends the confirmation (double opt-in)
// and the letters, and marks it confirmed; what stays unconfirmed is deleted after
// NEWSLETTER_UNCONFIRMED_DAYS. docs/article-page.md says why a form to our own endpoint, not a
// link out, and docs/write-paths.md what bounds each step.

/** RFC 5321's limit on a forward path; anything longer cannot be delivered to. */
const maxAddressLength = 254;
// Deliberately plain: one @, something before it, a dotted domain after it, no spaces or
// control characters. The confirmation email is the real check.
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const addressPattern = /^[^\s@<>"\u0000-\u001f\u007f]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** The address, trimmed and with its domain in lower case; throws a 400 with a reader's sentence. */
export function checkAddress(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw new KioskError('badRequest', 'Please give an email address to sign up with.');
  const address = value.trim();
  if (address.length > maxAddressLength || !addressPattern.test(address)) {
    throw new KioskError('badRequest', 'That does not look like an email address (name@example.com). Please go back and check it.');
  }
  const at = address.lastIndexOf('@');
  return address.slice(0, at) + address.slice(at).toLowerCase();
}

/** The letters ticked, each once; none ticked is a 400 (the form ticks the first for the reader). */
export function checkNewsletters(value: unknown): NewsletterId[] {
  const ticked = value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (ticked.length === 0) throw new KioskError('badRequest', 'Please tick at least one newsletter.');
  const ids: NewsletterId[] = [];
  for (const id of ticked) {
    if (typeof id !== 'string' || !isNewsletterId(id)) throw new KioskError('badRequest', 'That is not one of our newsletters.');
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

export interface NewsletterOptions {
  /** Where the form posts (the route table's entry). */
  path: string;
  /** Where sign-ups are kept; null where this site takes none. */
  signups: SignupStore | null;
  render: Pick<RenderDeps, 'assets' | 'siteUrl'>;
  /** Which X-Forwarded-For entry names the reader (CLIENT_ADDRESS_HOPS). */
  clientHops: number;
  /** Sign-ups one client may make an hour on this worker (SIGNUPS_PER_CLIENT_PER_HOUR). */
  perClientPerHour: number;
  /** Unconfirmed sign-ups older than this are deleted (NEWSLETTER_UNCONFIRMED_DAYS). */
  unconfirmedDays: number;
  now?: () => number;
}

/** Clients remembered per hour for the per-client limit: past it, new clients wait for the hour to turn. */
const maxClientsPerHour = 100_000;
/** Unconfirmed sign-ups are looked for and deleted at most this often, after a sign-up. */
const expireEveryMs = 60 * 60_000;

export function newsletterRouter(options: NewsletterOptions): express.Router {
  const { signups, render } = options;
  const now = options.now ?? Date.now;
  const limit = new PerClientLimit(options.perClientPerHour, 60 * 60_000, maxClientsPerHour, now);
  let expiredAt = -Infinity;

  /** Deletes sign-ups nobody confirmed in time; after the reader's answer, never in its way. */
  function expireUnconfirmed(store: SignupStore) {
    if (now() - expiredAt < expireEveryMs) return;
    expiredAt = now();
    const before = new Date(now() - options.unconfirmedDays * 86_400_000).toISOString();
    store.expireUnconfirmed(before).catch((error: unknown) => log.warn('deleting expired newsletter sign-ups failed', describeError(error)));
  }

  const router = express.Router({ caseSensitive: true, strict: true });
  router.post(options.path, express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 10 }), async (req: Request, res: Response) => {
    res.set('Cache-Control', cacheControl.noStore);
    if (isCrossSite(req, render.siteUrl)) {
      throw new KioskError('crossSite', 'Please sign up with the form on one of our article pages: sign-ups from other sites are not taken.');
    }
    const form = (req.body ?? {}) as Record<string, unknown>;
    const address = checkAddress(form.email);
    const letters = checkNewsletters(form.newsletters);
    if (!signups) throw new KioskError('notFound', 'Newsletter sign-up is not available on this site.');
    if (!limit.take(clientKey(clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], options.clientHops)))) {
      res.set('Retry-After', String(limit.retryAfterS()));
      throw new KioskError('tooManyRequests', 'There have been several sign-ups from your connection in the last hour. Please try again later.');
    }
    try {
      await signups.signup(address, letters, new Date(now()).toISOString());
    } catch (error) {
      if (error instanceof StoreBusy) {
        throw new KioskError('unavailable', 'We could not note your address just now, and nothing was saved. Please try again in a moment.');
      }
      throw error;
    }
    expireUnconfirmed(signups);
    const page = renderMessagePage(
      'Thank you for signing up',
      `We have noted ${address}. You will get an email asking you to confirm; the briefing starts once you do.`,
      render,
    );
    answer(req, res, 200, { ...errorPageHeaders, 'Content-Type': page.contentType }, page.html);
  });
  router.all(options.path, (_req, res) => {
    res.set('Allow', 'POST');
    throw new KioskError('methodNotAllowed', 'Sign up with the form on any article page.');
  });
  return router;
}
