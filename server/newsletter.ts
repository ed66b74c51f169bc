import express, { type Request, type Response } from 'express';
import { cacheControl } from './cache-policy';
import type { SignupStore } from './content/source';
import { KioskError } from './errors';
import { errorPageHeaders } from './pages';
import { renderErrorPage, type RenderDeps } from './render';
import { isNewsletterId, type NewsletterId } from '../src/newsletters';

// The newsletter sign-up: the article page's form posts here. The address is checked and
// recorded as unconfirmed; the newsroom's mailing tool sends the confirmation (double opt-in)
// and the letters. docs/article-page.md says why a form to our own endpoint, not a link out.

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

export function newsletterRouter(signups: SignupStore | null, render: Pick<RenderDeps, 'assets' | 'siteUrl'>): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  router.post('/newsletter', express.urlencoded({ extended: false, limit: '2kb', parameterLimit: 10 }), async (req: Request, res: Response) => {
    res.set('Cache-Control', cacheControl.noStore);
    const form = (req.body ?? {}) as Record<string, unknown>;
    const address = checkAddress(form.email);
    const letters = checkNewsletters(form.newsletters);
    if (!signups) throw new KioskError('notFound', 'Newsletter sign-up is not available on this site.');
    await signups.recordSignup(address, letters, new Date().toISOString());
    const page = renderErrorPage(
      200,
      `We have noted ${address}. You will get an email asking you to confirm; the briefing starts once you do.`,
      render,
      'Thank you for signing up',
    );
    res
      .status(200)
      .set({ ...errorPageHeaders, 'Content-Type': page.contentType })
      .send(page.html);
  });
  router.all('/newsletter', (_req, res) => {
    res.set('Allow', 'POST');
    throw new KioskError('methodNotAllowed', 'Sign up with the form on any article page.');
  });
  return router;
}
