import type { IncomingMessage } from 'node:http';

// The write paths a page uses (view beacons, the newsletter form) take requests from the site's
// own pages only: another site's page must not make its visitors count views or sign up. Browsers
// say where a request comes from in Sec-Fetch-Site (every current browser) and, before that, in
// Origin; a request with neither came from no browser page at all (curl, a crawler), which no
// header check could stop anyway: the per-client limits do.

/** True when the browser marked this request as sent from a page of another origin. */
export function isCrossSite(req: IncomingMessage, siteUrl: string): boolean {
  const fetchSite = req.headers['sec-fetch-site'];
  // "same-site" is another origin under the same registrable domain: another site as far as we know.
  if (typeof fetchSite === 'string') return fetchSite !== 'same-origin' && fetchSite !== 'none';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (origin === siteUrl) return false;
  // The origin the browser was on may be this host under another name than SITE_URL (a local
  // run on 127.0.0.1 for localhost): what counts is that it is the host the request went to.
  try {
    return new URL(origin).host !== req.headers.host;
  } catch {
    // "null" (a sandboxed frame, a privacy-sensitive redirect) or anything unreadable.
    return true;
  }
}
