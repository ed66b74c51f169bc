// What `npm start` and `npm run start:nginx` both do before serving: build if dist/ is missing
// or stale, and, when the caller asks for demo content, seed the embedded content store if it
// is empty.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isEmptyStore, seedStore } from '../server/content/seed';
import { staleBuildReason } from './build-state';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const serverBundle = path.join(root, 'dist/server/index.cjs');

export async function prepareToServe(options: { build: boolean; seed: boolean; contentDbPath: string; name: string }): Promise<void> {
  const stale = staleBuildReason(root);
  if (stale && options.build) {
    console.log(`${options.name}: building (${stale})`);
    const build = spawnSync('npx', ['webpack', '--mode', 'production'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  if (options.seed && isEmptyStore(options.contentDbPath)) {
    await seedStore(options.contentDbPath, { log: (line) => console.log(line) });
  }
}
