import path from 'node:path';

// Where a page's last good copy lives, in the layout Nginx's `try_files $uri/index.html` finds
// under <LAST_GOOD_DIR>/pages: "/" is pages/index.html, "/world/123" pages/world/123/index.html.
// Only canonical page paths get a file: lower-case ASCII letters, digits and hyphens in segments
// joined by single slashes, the way Kiosk spells every front, section, tag and article address
// (src/routes.tsx). Anything else (percent-encoding, dots, upper case, a trailing slash) is
// refused, so no request can name a file outside the directory or one Nginx would not look up.

const canonicalPagePath = /^\/(?:[a-z0-9](?:[a-z0-9-]{0,127})(?:\/[a-z0-9](?:[a-z0-9-]{0,127})){0,3})?$/;

/** The copies' directory under LAST_GOOD_DIR: Nginx's root for them. */
export function pagesDir(dir: string): string {
  return path.join(dir, 'pages');
}

/** Whether a page path is one a copy is kept of (canonical: see above). */
export function isCopyPath(pagePath: string): boolean {
  return canonicalPagePath.test(pagePath);
}

/** The copy's file for a canonical page path, or null for anything else. */
export function copyFileOf(dir: string, pagePath: string): string | null {
  if (!isCopyPath(pagePath)) return null;
  return path.join(pagesDir(dir), pagePath, 'index.html');
}

/**
 * The page as it is written to disk: its answer's UTF-8 bytes with every attribute carrying this
 * answer's CSP nonce taken out. From the bytes already encoded for the answer, not the page's
 * text: a page is a two-byte string as soon as it holds a typographic quote, and encoding it again
 * was about a quarter of a copy's timed write in a CPU profile (server/utf8.ts says why). A nonce is base64, so
 * its attribute is the same ASCII bytes wherever it stands in the page.
 */
export function withoutNonce(body: Buffer, nonce: string): Buffer {
  const attribute = Buffer.from(` nonce="${nonce}"`, 'latin1');
  const pieces: Buffer[] = [];
  let from = 0;
  for (let at = body.indexOf(attribute); at !== -1; at = body.indexOf(attribute, from)) {
    pieces.push(body.subarray(from, at));
    from = at + attribute.length;
  }
  if (from === 0) return body;
  pieces.push(body.subarray(from));
  return Buffer.concat(pieces);
}
