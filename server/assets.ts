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
