// The Elastic Beanstalk source bundle: exactly what an instance needs and nothing else. The
// platform installs the runtime dependencies itself from package.json and package-lock.json,
// so the bundle carries the build (dist/), the package files, the Procfile and the platform
// configuration (.ebextensions/, .platform/) and the database migrations (migrations/, which a
// leader-only container command applies): no sources, tests, node_modules or content store.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ebConfigPath, renderEbConfig } from '../nginx/render';
import { disagreements, environmentProperties, loadConfigFiles, optionSettings } from './ebextensions';

/** Top-level entries of the bundle, files or directories, relative to the repository root. */
export const bundleEntries = ['Procfile', 'package.json', 'package-lock.json', '.ebextensions', '.platform', 'dist', 'migrations'] as const;

export interface BundleFile {
  /** Relative to the repository root, with forward slashes: the path inside the zip. */
  path: string;
  bytes: number;
}

function walk(root: string, relative: string): BundleFile[] {
  const full = path.join(root, relative);
  const stat = fs.statSync(full);
  if (stat.isFile()) return [{ path: relative.split(path.sep).join('/'), bytes: stat.size }];
  if (!stat.isDirectory()) throw new Error(`${relative} is neither a file nor a directory`);
  return fs
    .readdirSync(full)
    .sort()
    .flatMap((child) => walk(root, path.join(relative, child)));
}

/** Every file that goes into the bundle, in a stable order. */
export function bundleFiles(root: string): BundleFile[] {
  return bundleEntries.flatMap((entry) => {
    if (!fs.existsSync(path.join(root, entry))) throw new Error(`${entry} is missing`);
    return walk(root, entry);
  });
}

/**
 * Reasons not to package this tree: a Nginx rendering older than its template, or environment
 * properties that disagree with it (each worker's port must be one Nginx proxies to).
 */
export function bundleProblems(): string[] {
  const problems: string[] = [];
  const nginxConf = fs.readFileSync(ebConfigPath, 'utf8');
  const env = environmentProperties(optionSettings(loadConfigFiles()));
  const workers = Number(env.WEB_CONCURRENCY);
  // Compare with a rendering for the worker count the environment asks for, so a deliberate
  // --workers N rendering is accepted and a stale one is not.
  if (Number.isInteger(workers) && workers > 0 && nginxConf !== renderEbConfig(workers)) {
    problems.push('.platform/nginx/nginx.conf is not the current rendering of nginx/kiosk.conf.template: run "npm run nginx:render"');
  }
  problems.push(...disagreements(env, nginxConf));
  return problems;
}

/**
 * Writes the zip with the system's zip: Unix permissions kept (the platform runs only
 * executable hooks), no extra attributes, an existing file replaced rather than updated.
 */
export function writeZip(root: string, files: BundleFile[], out: string): void {
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.rmSync(out, { force: true });
  const result = spawnSync('zip', ['-X', '-q', '-9', '-@', out], {
    cwd: root,
    input: files.map((f) => f.path).join('\n'),
    encoding: 'utf8',
  });
  if (result.error) throw new Error(`zip did not run (${result.error.message}): run scripts/setup-system.sh`);
  if (result.status !== 0) throw new Error(`zip failed:\n${result.stderr}`);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One line per part of the bundle: dist/client, dist/server, .ebextensions, .platform, the files at the top. */
export function summarize(files: BundleFile[]): string[] {
  const groups = new Map<string, { files: number; bytes: number }>();
  for (const file of files) {
    const parts = file.path.split('/');
    const group = parts.length === 1 ? 'Procfile, package.json, package-lock.json' : parts[0] === 'dist' ? `${parts[0]}/${parts[1]}/` : `${parts[0]}/`;
    const entry = groups.get(group) ?? { files: 0, bytes: 0 };
    entry.files += 1;
    entry.bytes += file.bytes;
    groups.set(group, entry);
  }
  const width = Math.max(...[...groups.keys()].map((g) => g.length));
  return [...groups].map(
    ([group, { files: count, bytes }]) => `  ${group.padEnd(width)}  ${String(count).padStart(4)} files  ${formatBytes(bytes).padStart(9)}`,
  );
}
