import fs from 'node:fs';
import path from 'node:path';
import type { Assets } from './assets';
import { buildShell, type Shell } from './shell';

// The shell as a file, so Nginx can answer with it when every worker is at its limit and the
// flood never reaches Node. The build writes it (write-shell.ts, run by webpack.config.js);
// Nginx serves it with its own static-file ETag, "<mtime hex>-<size hex>", and a worker that
// finds the same bytes on disk answers with that ETag too, so a browser or the CDN holding one
// revalidates against either with a 304.

export function shellFilePath(distDir: string): string {
  return path.join(distDir, 'client', 'shell.html');
}

/** Nginx's strong ETag for a static file (ngx_http_set_etag: "%xT-%xO"). */
export function nginxStaticEtag(stat: Pick<fs.Stats, 'mtimeMs' | 'size'>): string {
  return `"${Math.floor(stat.mtimeMs / 1000).toString(16)}-${stat.size.toString(16)}"`;
}

/** The shell's body depends only on the build (no site URL, no lifetime): what the build writes. */
export function writeShellFile(distDir: string, assets: Assets): string {
  const file = shellFilePath(distDir);
  fs.writeFileSync(file, buildShell(assets, '', 0).body);
  return file;
}

/**
 * The shell a worker serves: rendered here, with the file's ETag when the build's file holds
 * exactly these bytes (always, after `npm run build`), else its own content hash (tests run
 * without a build; a stale file is never vouched for).
 */
export function shellForServing(distDir: string, assets: Assets, siteUrl: string, sMaxAgeS: number): Shell {
  const file = shellFilePath(distDir);
  return buildShell(assets, siteUrl, sMaxAgeS, (body) => {
    try {
      return fs.readFileSync(file).equals(body) ? nginxStaticEtag(fs.statSync(file)) : null;
    } catch {
      return null;
    }
  });
}
