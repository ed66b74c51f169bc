import type { IncomingMessage, ServerResponse } from 'node:http';
import { mediaWidths } from '../src/media';
import { articleIdPattern } from '../src/sections';
import { answer } from './answer';
import { cacheControl } from './cache-policy';
import { KioskError } from './errors';

// Stand-in photographs: the seeded store has no real images and this machine has no network,
// so each article gets a deterministic SVG drawn from its id. A newsroom deployment points
// image URLs at its own image service instead.
// `<id>-<width>w.svg` is the same picture at one of the widths pages offer in srcset.
export function mediaHandler(req: IncomingMessage, res: ServerResponse, file: string) {
  const match = /^(\d{18})(?:-(\d{3,4})w)?\.svg$/.exec(file);
  if (!match || !articleIdPattern.test(match[1] ?? '')) throw new KioskError('notFound');
  const width = match[2] === undefined ? 1200 : Number(match[2]);
  if (!(mediaWidths as readonly number[]).includes(width)) throw new KioskError('notFound', `Images come ${mediaWidths.join(', ')} pixels wide.`);
  const height = Math.round((width * 675) / 1200);
  const id = match[1] as string;
  let hash = 0;
  for (const c of id) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const hue = hash % 360;
  const hue2 = (hue + 40) % 360;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1200 675" width="${width}" height="${height}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">` +
    `<stop offset="0" stop-color="hsl(${hue} 45% 42%)"/><stop offset="1" stop-color="hsl(${hue2} 50% 22%)"/>` +
    `</linearGradient></defs><rect width="1200" height="675" fill="url(#g)"/>` +
    `<circle cx="${300 + (hash % 60) * 10}" cy="300" r="160" fill="hsl(${hue2} 60% 70% / .35)"/>` +
    `<text x="60" y="620" font-family="sans-serif" font-size="40" fill="#fff" opacity=".8">Kiosk photo desk</text></svg>`;
  answer(req, res, 200, { 'Cache-Control': cacheControl.assets, 'Content-Type': svgType }, svg);
}

const favicon =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#16181d"/>' +
  '<text x="16" y="23" text-anchor="middle" font-family="Georgia, serif" font-size="20" font-weight="700" fill="#fff">K</text></svg>';

const svgType = 'image/svg+xml; charset=utf-8';

/** What follows the favicon's prefix in the names browsers ask for. */
export const faviconFiles: readonly string[] = ['svg', 'ico'];

export function faviconHandler(req: IncomingMessage, res: ServerResponse) {
  answer(req, res, 200, { 'Cache-Control': cacheControl.favicon, 'Content-Type': svgType }, favicon);
}
