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

/**
 * The local commands are the quick start, so they ask for demo content (SEED_DEMO_CONTENT=true)
 * unless the caller set the setting, passed --no-seed or reads a newsroom API or PostgreSQL; and
 * they say so.
 */
export function askForDemoContent(env: NodeJS.ProcessEnv, noSeed: boolean, name: string): void {
  // The demo seed fills the embedded SQLite store; a newsroom API or PostgreSQL is filled elsewhere.
  const elsewhere = Boolean(env.CONTENT_API_URL) || Boolean(env.CONTENT_DATABASE_URL);
  if (noSeed) env.SEED_DEMO_CONTENT = 'false';
  else if (env.SEED_DEMO_CONTENT === undefined && !elsewhere) {
    env.SEED_DEMO_CONTENT = 'true';
    console.log(
      `${name}: SEED_DEMO_CONTENT=true (the local quick start): an empty content store is seeded with made-up demo articles; set SEED_DEMO_CONTENT=false or pass --no-seed to start without`,
    );
  }
}
