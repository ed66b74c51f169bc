// What a reader on a Node older than package.json's "engines" sees, run for real: the npm found
// beside that Node (or on PATH), on that Node, in a project made of this one's "engines" and
// "scripts", .npmrc, .node-version and scripts/check-node.cjs, plus one local dependency
// (file:dep) so that an install would leave node_modules behind. `npm ci` refuses before it
// installs anything (engine-strict; npm runs none of the project's scripts before that check, so
// the sentence it shows is the one package.json keeps beside "engines.node", which npm prints in
// its EBADENGINE error with the version found), and `npm start`, `npm run dev` and `npm test`
// print scripts/check-node.cjs's one sentence and nothing else. And this
// repository's .npmrc makes npm warn about nothing, on either Node. The older Node is looked for on
// PATH and in /usr/bin, /usr/local/bin and /bin; with none there, these tests are skipped.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  engines: { node: string; kiosk: string };
  scripts: Record<string, string>;
};
const required = Number(/^>=\s*(\d+)$/.exec(pkg.engines.node)?.[1]);

function olderNode(): { node: string; version: string } | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/bin', '/usr/local/bin', '/bin'];
  for (const dir of new Set(dirs.filter(Boolean))) {
    const node = path.join(dir, 'node');
    if (!fs.existsSync(node)) continue;
    const run = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    const version = run.stdout?.trim() ?? '';
    if (run.status === 0 && Number(version.split('.')[0]) < required) return { node, version };
  }
  return undefined;
}

const older = olderNode();
const skip = !older && `no Node older than ${required} on PATH or in /usr/bin, /usr/local/bin or /bin to run npm on`;

/**
 * npm as a reader runs it: `node` and `npm` first from `nodeDir`, no npm_* variables inherited from
 * the npm running the tests, and a home of the test's own whose .npmrc only turns off npm's check
 * for a newer npm (a registry request, and lines on stderr that are not the project's).
 */
function npm(nodeDir: string, cwd: string, home: string, args: string[], linkedNode = path.join(home, 'no-node-linked-here')) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_OPTIONS'));
  env.PATH = [nodeDir, process.env.PATH].join(path.delimiter);
  env.HOME = home;
  // Where check-node.cjs looks for setup-system.sh's Node (/usr/local/bin/node unless told).
  env.KIOSK_LINKED_NODE = linkedNode;
  return spawnSync('npm', args, { cwd, env, encoding: 'utf8' });
}

function withProject(run: (dir: string, home: string) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-old-node-'));
  const home = path.join(dir, 'home');
  const project = path.join(dir, 'project');
  try {
    fs.mkdirSync(home);
    fs.writeFileSync(path.join(home, '.npmrc'), 'update-notifier=false\n');
    fs.mkdirSync(path.join(project, 'scripts'), { recursive: true });
    fs.mkdirSync(path.join(project, 'dep'));
    for (const file of ['.npmrc', '.node-version', 'scripts/check-node.cjs']) {
      fs.copyFileSync(path.join(root, file), path.join(project, file));
    }
    const dep = { name: 'dep', version: '1.0.0' };
    fs.writeFileSync(path.join(project, 'dep', 'package.json'), JSON.stringify(dep));
    const { name, version, engines, scripts } = pkg;
    const dependencies = { dep: 'file:dep' };
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name, version, private: true, engines, scripts, dependencies }));
    const lock = {
      name,
      version,
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name, version, dependencies, engines },
        dep: { version: dep.version },
        'node_modules/dep': { resolved: 'dep', link: true },
      },
    };
    fs.writeFileSync(path.join(project, 'package-lock.json'), JSON.stringify(lock));
    run(project, home);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('on an older Node, npm ci refuses before installing anything, with the sentence, the Node required and the one found', { skip }, () => {
  const { node, version } = older!;
  withProject((project, home) => {
    const result = npm(path.dirname(node), project, home, ['ci']);
    assert.notEqual(result.status, 0, result.stdout + result.stderr);
    assert.equal(fs.existsSync(path.join(project, 'node_modules')), false, 'npm ci installed something');
    assert.match(result.stderr, /EBADENGINE/);
    assert.ok(result.stderr.includes(JSON.stringify(pkg.engines.node)), result.stderr);
    assert.ok(result.stderr.includes(`"node":"v${version}"`), result.stderr);
    // The sentence names the major "engines.node" requires, so raising one without the other fails here.
    assert.ok(result.stderr.includes(`Kiosk needs Node.js ${required} or newer: run \`bash scripts/setup-system.sh\``), result.stderr);
  });
});

for (const command of [['start'], ['run', 'dev'], ['test']]) {
  test(`on an older Node, npm ${command.join(' ')} stops with the one sentence and nothing else`, { skip }, () => {
    const { node, version } = older!;
    withProject((project, home) => {
      const result = npm(path.dirname(node), project, home, command);
      assert.equal(result.status, 1, result.stdout + result.stderr);
      const lines = result.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      const [line] = lines as [string];
      assert.ok(line.startsWith(`Kiosk needs Node.js ${required} or newer but this is Node.js ${version} (`), line);
      assert.ok(line.includes('run `bash scripts/setup-system.sh`'), line);
    });
  });
}

test('on an older Node, with a new enough Node already where setup-system.sh links it, the sentence says to fix the PATH instead', { skip }, () => {
  const { node, version } = older!;
  withProject((project, home) => {
    // This test's own Node stands in for /usr/local/bin/node.
    const result = npm(path.dirname(node), project, home, ['start'], process.execPath);
    assert.equal(result.status, 1, result.stdout + result.stderr);
    assert.equal(
      result.stderr.trimEnd(),
      `Kiosk needs Node.js ${required} or newer but this is Node.js ${version} (${node}): ` +
        `Node.js ${process.versions.node} is already installed as ${process.execPath}: put ${path.dirname(process.execPath)} before ${path.dirname(node)} in PATH, then try again.`,
    );
  });
});

test("this repository's .npmrc makes npm warn about nothing, on this Node and on an older one", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-npmrc-'));
  fs.writeFileSync(path.join(home, '.npmrc'), 'update-notifier=false\n');
  try {
    for (const node of [process.execPath, ...(older ? [older.node] : [])]) {
      for (const args of [['config', 'list'], ['pkg', 'get', 'engines'], ['run']]) {
        const result = npm(path.dirname(node), root, home, args);
        assert.equal(result.status, 0, `${node}: npm ${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stderr, '', `${node}: npm ${args.join(' ')}`);
      }
    }
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});
