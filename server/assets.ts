import fs from 'node:fs';
import path from 'node:path';

/** The client bundle's files for one page, in the order they must load. */
export interface Assets {
  scripts: string[];
  styles: string[];
}

/** Written by the manifest plugin in webpack.config.js. */
interface Manifest {
  publicPath: string;
  scripts: string[];
  styles: string[];
}

export class MissingBuildError extends Error {
  override name = 'MissingBuildError';
}

export function manifestPath(distDir: string): string {
  return path.join(distDir, 'client', 'manifest.json');
}

/** Read once at start-up; a missing or malformed manifest stops the worker with a clear message. */
export function loadAssets(distDir: string): Assets {
  const file = manifestPath(distDir);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  } catch (error) {
    throw new MissingBuildError(`Cannot read the client manifest at ${file} (run "npm run build"): ${String(error)}`);
  }
  if (!Array.isArray(manifest.scripts) || manifest.scripts.length === 0 || !Array.isArray(manifest.styles)) {
    throw new MissingBuildError(`The client manifest at ${file} lists no scripts; rebuild with "npm run build"`);
  }
  return {
    scripts: manifest.scripts.map((f) => manifest.publicPath + f),
    styles: manifest.styles.map((f) => manifest.publicPath + f),
  };
}

export function assetsDir(distDir: string): string {
  return path.join(distDir, 'client', 'assets');
}

/** The types Nginx gives the same files (nginx/kiosk.conf.template's types), so either answer is the same. */
const fileTypes: Readonly<Record<string, string>> = {
  '.js': 'application/javascript',
  '.css': 'text/css',
  '.map': 'application/json',
  '.txt': 'text/plain',
  '.gz': 'application/gzip',
};

/**
 * The bundle's file named `name` (a bare file name, as the build writes them), or null: anything
 * with a separator, a dot-dot or an encoding in it names no file of the bundle. Nginx serves these
 * from disk in production; this is for running without it.
 */
export async function readAsset(distDir: string, name: string): Promise<{ bytes: Buffer; type: string } | null> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes('..')) return null;
  try {
    const bytes = await fs.promises.readFile(path.join(assetsDir(distDir), name));
    return { bytes, type: fileTypes[path.extname(name)] ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}
