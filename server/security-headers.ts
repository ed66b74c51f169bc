import { randomBytes } from 'node:crypto';

// Headers every HTML answer carries, and the Content-Security-Policy. Server-rendered pages get
// a fresh nonce per response on every script tag; the shell is one cached document for
// everyone, so its policy names the site's own origin instead ('self') and carries no nonce.
// HSTS is Nginx's (nginx/kiosk.conf.template): it belongs to the HTTPS edge, not to Node.

export const securityHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
  // For browsers without CSP's frame-ancestors.
  'X-Frame-Options': 'DENY',
} as const;

const common = [
  "default-src 'self'",
  "style-src 'self'",
  // Article images are ours or on https (isImageSrc in src/content-schema.ts allows nothing else).
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];

export type ScriptPolicy = { nonce: string } | 'self' | 'none';

export function contentSecurityPolicy(scripts: ScriptPolicy): string {
  // 'strict-dynamic': scripts the nonce'd bundle loads are trusted too; 'self' is then ignored
  // by browsers that know it and kept for those that do not.
  const scriptSrc =
    scripts === 'none' ? "script-src 'none'" : scripts === 'self' ? "script-src 'self'" : `script-src 'nonce-${scripts.nonce}' 'strict-dynamic' 'self'`;
  return [...common, scriptSrc].join('; ');
}

// One call into the system's random source per 256 nonces: randomBytes(16) per response was
// 2% of a worker's busy time under load (CPU profile at 950 req/s).
const nonceBytes = 16;
const poolSize = 256 * nonceBytes;
let pool = randomBytes(poolSize);
let offset = 0;

/** 128 random bits, base64: unguessable for the response it is made for, never reused. */
export function newNonce(): string {
  if (offset === poolSize) {
    pool = randomBytes(poolSize);
    offset = 0;
  }
  const nonce = pool.toString('base64', offset, offset + nonceBytes);
  offset += nonceBytes;
  return nonce;
}
