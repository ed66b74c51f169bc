import fs from 'node:fs';
import path from 'node:path';

// What the build is made from: a change to any of these makes dist/ stale.
const inputs = ['src', 'server', 'client', 'webpack.config.js', 'tsconfig.base.json', 'package-lock.json'];
const outputs = ['dist/client/manifest.json', 'dist/server/index.cjs', 'dist/server/seed-demo.cjs', 'dist/client/shell.html'];

function newestMtime(entry: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const child of fs.readdirSync(entry)) {
    if (child.endsWith('.test.ts') || child.endsWith('.test.tsx')) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, child)));
  }
  return newest;
}

/** Why the build must run, or null when dist/ is newer than every input. */
export function staleBuildReason(root: string): string | null {
  for (const output of outputs) {
    if (newestMtime(path.join(root, output)) === 0) return `${output} is missing`;
  }
  // webpack leaves a file alone when its content is unchanged, so the server bundle can be
  // older than the build that checked it; the manifest carries a build time and is always
  // rewritten, so its time is the build's (both bundles come from one webpack run).
  const builtAt = newestMtime(path.join(root, outputs[0]!));
  // npm run dev writes a development build to the same place; npm start must not serve it.
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, outputs[0]!), 'utf8')) as { mode?: string };
    if (manifest.mode !== 'production') return `the build in dist/ is a ${manifest.mode ?? 'unknown'} build`;
  } catch {
    return 'dist/client/manifest.json is unreadable';
  }
  for (const input of inputs) {
    if (newestMtime(path.join(root, input)) > builtAt) return `${input} changed since the last build`;
  }
  return null;
}
