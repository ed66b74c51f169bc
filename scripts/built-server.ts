// The product as operators run it on one machine, for the tools (through the surface) and the
// tests (through test/server.ts): a seeded SQLite store in a temporary directory, and the built
// cluster (`node dist/server/index.cjs`) on a free port, with what it printed.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { seedStore } from '../server/content/seed';
import { freePort } from './ports';

/** A new temporary directory with a seeded SQLite store (`published` articles, `drafts` drafts) in it; the caller removes `dir`. */
export async function seedTempStore(published = 600, drafts = 20): Promise<{ dir: string; dbPath: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-test-'));
  const dbPath = path.join(dir, 'kiosk.sqlite');
  await seedStore(dbPath, { published, drafts, log: () => {} });
  return { dir, dbPath };
}

/** Every published article's page path (`/<section>/<id>`) in a SQLite store, in the store's order. */
export function publishedArticlePaths(dbPath: string): string[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db
      .prepare<[], { id: string; section: string }>("SELECT id, section FROM articles WHERE status = 'published'")
      .all()
      .map(({ id, section }) => `/${section}/${id}`);
  } finally {
    db.close();
  }
}

export interface BuiltServer {
  baseUrl: string;
  process: ChildProcess;
  /** Everything the cluster printed so far. */
  output(): string;
  /** The pid of every worker that has said it is listening, replacements included, in order. */
  workerPids(): number[];
  /** Resolves with the exit code once the cluster has exited. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

const distDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** How many ports are tried when the one picked for the server is taken by the time Kiosk binds it. */
const portAttempts = 3;

/**
 * The production build as operators run it: `node dist/server/index.cjs`, the throng
 * primary with its workers. Needs `npm run build` first (npm test does it). A caller may choose
 * the port (`env.PORT`: per-worker mode needs a free range); otherwise it is a free one, and
 * if another process takes it between the pick and the bind (two test files starting servers
 * at once can be handed the same port), Kiosk refuses to start and a new one is picked.
 * `pickPort` is for the test of that.
 */
export async function startBuiltServer(dbPath: string, env: Record<string, string> = {}, pickPort: () => Promise<number> = freePort): Promise<BuiltServer> {
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT ? Number(env.PORT) : await pickPort();
    try {
      return await startOnPort(dbPath, env, port);
    } catch (error) {
      const taken = error instanceof Error && error.message.includes(`Port ${port} is already taken`);
      if (env.PORT || !taken || attempt >= portAttempts) throw error;
    }
  }
}

async function startOnPort(dbPath: string, env: Record<string, string>, port: number): Promise<BuiltServer> {
  const bundle = path.join(distDir, 'server', 'index.cjs');
  if (!fs.existsSync(bundle)) throw new Error(`${bundle} is missing: run "npm run build" first`);
  const child = spawn(process.execPath, ['--enable-source-maps', bundle], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      WEB_CONCURRENCY: '1',
      CONTENT_DB_PATH: dbPath,
      DIST_DIR: distDir,
      SHUTDOWN_GRACE_MS: '3000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const workers = Number(env.WEB_CONCURRENCY ?? '1');
  const deadline = Date.now() + 15_000;
  while ((output.match(/"worker listening"/g)?.length ?? 0) < workers) {
    if (child.exitCode !== null) throw new Error(`the server exited during start-up:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start within 15 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl,
    process: child,
    output: () => output,
    workerPids: () =>
      output
        .split('\n')
        .filter((line) => line.includes('"worker listening"'))
        .map((line) => (JSON.parse(line) as { pid: number }).pid),
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/**
 * Every path once, `lanes` requests at a time (a closed loop: a pass over the pages to warm or
 * fill a server, not a load generator; loadgen.c and Gatling measure rates); throws on an answer
 * other than 200.
 */
export async function readEveryPage(baseUrl: string, paths: readonly string[], lanes = 8): Promise<void> {
  let next = 0;
  async function lane(): Promise<void> {
    while (next < paths.length) {
      const path = paths[next++]!;
      const res = await fetch(baseUrl + path);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    }
  }
  await Promise.all(Array.from({ length: lanes }, lane));
}
