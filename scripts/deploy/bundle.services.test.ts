// The source bundle as an instance gets it: `npm run bundle`, unzipped in an empty directory,
// production dependencies installed from the lock file (nothing compiles: better-sqlite3 loads
// the binary its package carries), then the Procfile's command run there with the .ebextensions
// environment properties: without SEED_DEMO_CONTENT it refuses to start on the empty store and
// says which setting to use; with SEED_DEMO_CONTENT=true (as `eb setenv` would set it) it seeds
// demo articles and starts the cluster that serves an article. Paths and ports are the test's
// own (the instance's /var/app/... and 8080 are not ours to take). Needs `npm run build` first
// (npm test does it), zip and unzip (scripts/setup-system.sh) and the npm registry.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freePortRange, teasersIn } from '../../test/server';
import { waitFor } from '../../test/wait';
import { bundleEntries } from './bundle';
import { environmentProperties, loadConfigFiles, optionSettings, root } from './ebextensions';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-bundle-'));
const zip = path.join(dir, 'kiosk.zip');
const app = path.join(dir, 'app');
let web: ChildProcess | undefined;
let webOutput = '';

after(async () => {
  if (web?.pid && web.exitCode === null && web.signalCode === null) {
    const exited = new Promise((resolve) => web!.once('exit', resolve));
    process.kill(-web.pid, 'SIGTERM');
    // A ceiling, not a wait: only a drain that hangs is cut short.
    const forced = setTimeout(() => process.kill(-web!.pid!, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(forced);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

function run(command: string, args: string[], cwd: string, timeoutMs: number): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed (${result.error?.message ?? `status ${result.status}`}):\n${output}`);
  return output;
}

function get(url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      })
      .on('error', reject);
  });
}

function filesUnder(relative: string): string[] {
  const full = path.join(root, relative);
  if (fs.statSync(full).isFile()) return [relative];
  return fs.readdirSync(full).flatMap((child) => filesUnder(path.posix.join(relative, child)));
}

test('npm run bundle writes exactly what the instance needs', { timeout: 120_000 }, () => {
  const printed = run(process.execPath, ['--import', 'tsx', 'scripts/bundle.ts', '--out', zip, '--no-build'], root, 110_000);
  assert.match(printed, /bundle: wrote .*kiosk\.zip: [\d.]+ (KB|MB), \d+ files/);
  assert.match(printed, /dist\/client\//);

  const entries = run('unzip', ['-Z1', zip], dir, 30_000).trim().split('\n').sort();
  const expected = bundleEntries.flatMap(filesUnder).sort();
  assert.deepEqual(entries, expected);
  assert.ok(entries.includes('dist/server/index.cjs') && entries.includes('dist/server/seed-demo.cjs'));
  // The demo seed's made-up copy is its own entry, never part of the server the cluster runs.
  assert.match(fs.readFileSync(path.join(root, 'dist/server/seed-demo.cjs'), 'utf8'), /server\/content\/seed\.ts/);
  assert.doesNotMatch(fs.readFileSync(path.join(root, 'dist/server/index.cjs'), 'utf8'), /server\/content\/seed\.ts/);
  assert.ok(entries.includes('dist/client/manifest.json'));
  assert.ok(entries.includes('.platform/nginx/nginx.conf'));
  for (const entry of entries) {
    assert.doesNotMatch(entry, /^(src|server|client|scripts|node_modules|data|nginx|bundle)\/|\.test\.tsx?$|^\.git|^\.venv/, entry);
  }
  // The platform runs only executable hooks: the mode must survive the zip.
  const listing = run('unzip', ['-Z', zip], dir, 30_000);
  for (const hook of entries.filter((e) => e.includes('hooks/'))) {
    assert.match(listing, new RegExp(`^-rwxr-xr-x .* ${hook.replace(/[.]/g, '\\.')}$`, 'm'), `${hook} lost its execute bit`);
  }
});

test(
  'unzipped, installed without devDependencies and started as the Procfile says: no store is an error naming SEED_DEMO_CONTENT; with it, it seeds and serves an article',
  { timeout: 900_000 },
  async () => {
    assert.ok(fs.existsSync(zip), 'the bundle test ran first');
    fs.mkdirSync(app);
    run('unzip', ['-q', zip, '-d', app], dir, 60_000);

    // What the platform does with package.json and the lock file, devDependencies left out.
    run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], app, 840_000);
    for (const runtime of ['express', 'react', 'throng', 'better-sqlite3']) {
      assert.ok(fs.existsSync(path.join(app, 'node_modules', runtime, 'package.json')), `${runtime} is installed`);
    }
    for (const tool of ['webpack', 'tsx', 'typescript', 'eslint', 'yaml']) {
      assert.ok(!fs.existsSync(path.join(app, 'node_modules', tool)), `${tool} is a devDependency and must not be installed`);
    }

    const [procfileLine] = fs.readFileSync(path.join(app, 'Procfile'), 'utf8').split('\n');
    const command = /^web:\s*(.+)$/.exec(procfileLine ?? '')?.[1];
    assert.ok(command, 'a web process in the Procfile');

    const workers = 2;
    const firstPort = await freePortRange(workers);
    const dbPath = path.join(dir, 'var-app-data', 'kiosk.sqlite');
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? dir,
      ...environmentProperties(optionSettings(loadConfigFiles())),
      // This machine's stand-ins for the instance's paths and ports; two workers, not four, on
      // a shared machine.
      PORT: String(firstPort),
      WEB_CONCURRENCY: String(workers),
      CONTENT_DB_PATH: dbPath,
      DIST_DIR: path.join(app, 'dist'),
      SITE_URL: `http://127.0.0.1:${firstPort}`,
    };
    assert.equal(env.LISTEN_MODE, 'per-worker');
    assert.equal(env.NODE_ENV, 'production');
    assert.ok(!fs.existsSync(dbPath));

    assert.equal(env.SEED_DEMO_CONTENT, undefined, 'the deployed environment asks for no made-up news');

    // As the platform runs a Procfile line: through sh, in the application's directory.
    const refused = spawnSync('/bin/sh', ['-c', command], { cwd: app, env, encoding: 'utf8', timeout: 60_000 });
    assert.notEqual(refused.status, 0, 'the cluster must not start on an empty store');
    assert.match(refused.stdout + refused.stderr, /No content store at .*SEED_DEMO_CONTENT=true/);
    assert.ok(!fs.existsSync(dbPath), 'nothing was seeded');

    env.SEED_DEMO_CONTENT = 'true';
    web = spawn('/bin/sh', ['-c', command], { cwd: app, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    web.stdout!.on('data', (chunk: Buffer) => (webOutput += chunk.toString()));
    web.stderr!.on('data', (chunk: Buffer) => (webOutput += chunk.toString()));
    const started = web;
    await waitFor(
      'every worker listening',
      () => {
        assert.equal(started.exitCode, null, `the web process exited:\n${webOutput}`);
        return (webOutput.match(/"worker listening"/g)?.length ?? 0) >= workers;
      },
      { ceilingMs: 120_000, everyMs: 100 },
    ).catch((error: Error) => assert.fail(`${error.message}:\n${webOutput}`));
    assert.match(webOutput, /"message":"content store seeded with demo articles \(SEED_DEMO_CONTENT=true\)".*"articles":10200/);
    assert.ok(fs.existsSync(dbPath));

    for (let slot = 0; slot < workers; slot++) {
      const base = `http://127.0.0.1:${firstPort + slot}`;
      const front = await get(`${base}/api/front`);
      assert.equal(front.status, 200, front.body);
      const [teaser] = teasersIn(JSON.parse(front.body));
      assert.ok(teaser, 'the front page lists articles');
      const article = await get(`${base}/${teaser.section}/${teaser.id}`);
      assert.equal(article.status, 200, article.body.slice(0, 500));
      assert.equal(article.headers['x-render-mode'], 'ssr');
      assert.match(article.headers['content-type'] ?? '', /text\/html/);
      assert.match(article.body, /data-render-mode="ssr"/);
      assert.match(article.body, /\/assets\/[\w.-]+\.js/);
    }

    // SIGTERM, as the platform stops the web process: the cluster drains and exits cleanly.
    const exited = new Promise<number | null>((resolve) => web!.once('exit', (code) => resolve(code)));
    process.kill(-web.pid!, 'SIGTERM');
    assert.equal(await exited, 0, webOutput);
  },
);
