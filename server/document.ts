import { renderModeAttribute, rootElementId, stateElementId, type RenderMode } from '../src/page-contract';
import { route } from '../src/request-kinds';
import type { Assets } from './assets';
import { stateJson } from './state-json';

const faviconHref = `${route('favicon').prefix!}svg`;

export interface DocumentHead {
  title: string;
  description: string;
  /** Absolute URL, or null where the page must not claim one (errors, not found). */
  canonicalUrl: string | null;
  ogType: 'website' | 'article';
  ogImage?: string;
  robots?: string;
}

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => htmlEscapes[c] ?? c);
}

function headTags(head: DocumentHead, siteUrl: string): string {
  const tags = [
    `<title>${escapeHtml(head.title)}</title>`,
    `<meta name="description" content="${escapeHtml(head.description)}">`,
    `<meta property="og:site_name" content="Kiosk">`,
    `<meta property="og:title" content="${escapeHtml(head.title)}">`,
    `<meta property="og:description" content="${escapeHtml(head.description)}">`,
    `<meta property="og:type" content="${head.ogType}">`,
  ];
  if (head.canonicalUrl) {
    tags.push(`<link rel="canonical" href="${escapeHtml(head.canonicalUrl)}">`);
    tags.push(`<meta property="og:url" content="${escapeHtml(head.canonicalUrl)}">`);
  }
  // Images are ours (a path) or already absolute (https, from the CMS).
  if (head.ogImage) tags.push(`<meta property="og:image" content="${escapeHtml(/^https:\/\//.test(head.ogImage) ? head.ogImage : siteUrl + head.ogImage)}">`);
  if (head.robots) tags.push(`<meta name="robots" content="${escapeHtml(head.robots)}">`);
  return tags.join('');
}

export interface DocumentParts {
  head: DocumentHead;
  siteUrl: string;
  assets: Assets;
  /** Markup inside the root element. */
  body: string;
  /** Written for the browser to hydrate from; omitted for the shell and error pages. */
  state?: unknown;
  /** Omitted for pages that must not boot the client (error pages, previews). */
  mode?: RenderMode;
  /** A notice above the page, outside the app (an editor's preview). Plain text. */
  banner?: string;
  /** The response's CSP nonce, put on every script tag; omitted for the shared shell. */
  nonce?: string;
}

/** The whole HTML document around the rendered app. */
export function renderDocument({ head, siteUrl, assets, body, state, mode, banner, nonce }: DocumentParts): string {
  const styles = assets.styles.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('');
  const nonceAttribute = nonce === undefined ? '' : ` nonce="${escapeHtml(nonce)}"`;
  const scripts = mode ? assets.scripts.map((src) => `<script defer src="${escapeHtml(src)}"${nonceAttribute}></script>`).join('') : '';
  const modeAttribute = mode ? ` ${renderModeAttribute}="${mode}"` : '';
  const stateScript = state === undefined ? '' : `<script id="${stateElementId}" type="application/json"${nonceAttribute}>${stateJson(state)}</script>`;
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<link rel="icon" href="${faviconHref}" type="image/svg+xml">` +
    headTags(head, siteUrl) +
    styles +
    scripts +
    `</head><body>${banner === undefined ? '' : `<p class="preview-banner" role="status">${escapeHtml(banner)}</p>`}` +
    `<div id="${rootElementId}"${modeAttribute}>${body}</div>${stateScript}</body></html>`
  );
}
