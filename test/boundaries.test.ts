// The boundary between the product and its tools. Each tool that is an npm workspace (root
// package.json "workspaces") is a package of its own: it imports its own files, the packages its
// package.json names, and of the product only @kiosk/surface (surface/index.ts, described in
// docs/architecture.md); its tests may also use the harnesses in test/. A tool never imports
// another tool; it may import the tools' shared libraries (listed below) that its package.json
// names. A library is a workspace in tools/ too, but uses nothing of the product, not even the
// surface, and no tool. Product code, the harnesses and the surface never import a tool or a
// library. Every folder in tools/ is a workspace.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

const root = path.resolve(import.meta.dirname, '..');

/**
 * The tools' shared libraries, by package name: workspaces in tools/ with no command, which a
 * tool may import when its package.json names them. They use nothing of the product.
 */
const libraries: Record<string, string> = {
  '@kiosk/svg': 'the SVG writer of the charts of bench, capacity and fleet',
};

const productDirs = ['server', 'src', 'client', 'scripts', 'test', 'surface'];
const sourceFile = /\.(ts|tsx|cjs|mjs|js)$/;

interface Workspace {
  dir: string;
  name: string;
  dependencies: Set<string>;
}

function workspaces(): Workspace[] {
  const rootPackage = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces: string[] };
  return rootPackage.workspaces.map((dir) => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    return { dir, name: pkg.name, dependencies: new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]) };
  });
}

function filesUnder(dir: string): string[] {
  const full = path.join(root, dir);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [dir];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'fixtures') return [];
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(relative);
    return sourceFile.test(entry.name) ? [relative] : [];
  });
}

/** Every module specifier a file names: static imports, re-exports, dynamic import() and require() of a string. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

const builtins = new Set(builtinModules);
const packageName = (specifier: string) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);
const within = (file: string, dir: string) => file === dir || file.startsWith(`${dir}/`);
const isTest = (file: string) => /\.test\.tsx?$/.test(file);

/**
 * What is wrong with one import, or null. `file` and what a relative specifier resolves to are
 * repository paths with forward slashes; the resolved path has no extension when the specifier
 * had none, so it is compared by prefix.
 */
function importProblem(file: string, specifier: string, tools: readonly Workspace[]): string | null {
  const tool = tools.find((w) => w.dir.startsWith('tools/') && within(file, w.dir));
  const library = tool !== undefined && tool.name in libraries;
  const relative = specifier.startsWith('.');
  const target = relative ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)) : null;

  if (!tool) {
    if (!productDirs.some((dir) => within(file, dir))) return null;
    if (target && within(target, 'tools')) return `product code imports a tool: ${specifier}`;
    if (!relative && /^@kiosk\//.test(specifier) && specifier !== '@kiosk/surface') return `product code imports a tool: ${specifier}`;
    if (target && within(target, 'test') && !within(file, 'test') && !isTest(file)) return `product code imports the test harness: ${specifier}`;
    return null;
  }
  if (specifier.startsWith('node:') || builtins.has(specifier)) return null;
  if (target) {
    if (within(target, tool.dir)) return null;
    if (isTest(file) && !library && within(target, 'test')) return null;
    const only = library ? 'a library uses nothing of the product' : 'the product only through @kiosk/surface';
    return `${tool.name} reaches outside its package: ${specifier} (${only})`;
  }
  const name = packageName(specifier);
  if (library && name === '@kiosk/surface') return `${tool.name} is a library of the tools and uses nothing of the product: ${specifier}`;
  if (name.startsWith('@kiosk/') && name !== '@kiosk/surface' && !(name in libraries)) return `${tool.name} imports another tool: ${specifier}`;
  if (!tool.dependencies.has(name)) return `${tool.name} imports ${name}, which its package.json does not name`;
  return null;
}

describe('the boundary between the product and its tools', () => {
  const tools = workspaces();

  test('every folder in tools/ is a workspace or on the list of those not yet moved, the list names no workspace, and each library is a workspace', () => {
    const entries = fs.readdirSync(path.join(root, 'tools'), { withFileTypes: true }).filter((e) => e.isDirectory() || sourceFile.test(e.name));
    for (const entry of entries) {
      const dir = `tools/${entry.name}`;
      assert.ok(
        tools.some((w) => w.dir === dir),
        `${dir} is not a workspace`,
      );
    }
    for (const tool of tools.filter((w) => w.dir.startsWith('tools/'))) {
      assert.ok(fs.existsSync(path.join(root, tool.dir, 'tsconfig.json')), `${tool.dir} has no tsconfig.json of its own`);
      const library = tool.name in libraries;
      const why = library ? `${tool.name} is a library of the tools: it must not depend on @kiosk/surface` : `${tool.name} does not depend on @kiosk/surface`;
      assert.equal(tool.dependencies.has('@kiosk/surface'), !library, why);
    }
    for (const name of Object.keys(libraries)) {
      assert.ok(
        tools.some((w) => w.name === name && w.dir.startsWith('tools/')),
        `${name} is on the list of libraries but is not a workspace in tools/`,
      );
    }
  });

  test('no product file imports a tool, and no tool reaches the product but through @kiosk/surface', () => {
    const files = [...productDirs, ...tools.filter((w) => w.dir.startsWith('tools/')).map((w) => w.dir)].flatMap(filesUnder);
    assert.ok(files.length > 150, `read ${files.length} files`);
    const problems = files.flatMap((file) =>
      importsOf(fs.readFileSync(path.join(root, file), 'utf8')).flatMap((specifier) => {
        const problem = importProblem(file, specifier, tools);
        return problem ? [`${file}: ${problem}`] : [];
      }),
    );
    assert.deepEqual(problems, []);
  });

  test('the rule refuses what it is for', () => {
    const edge: Workspace = { dir: 'tools/edge', name: '@kiosk/edge', dependencies: new Set(['@kiosk/surface', 'yaml']) };
    const fleet: Workspace = { dir: 'tools/fleet', name: '@kiosk/fleet', dependencies: new Set(['@kiosk/surface', '@kiosk/svg']) };
    const svg: Workspace = { dir: 'tools/svg', name: '@kiosk/svg', dependencies: new Set() };
    const check = (file: string, specifier: string) => importProblem(file, specifier, [edge, fleet, svg]);
    assert.match(check('tools/edge/edge.ts', '../../server/config') ?? '', /reaches outside its package/);
    assert.match(check('tools/edge/edge.ts', '../../test/server') ?? '', /reaches outside its package/, 'the harnesses are for tests');
    assert.match(check('tools/edge/edge.ts', '../fleet/run') ?? '', /reaches outside its package/);
    assert.match(check('tools/edge/edge.ts', '@kiosk/fleet') ?? '', /imports another tool/);
    assert.match(check('tools/edge/edge.ts', 'lighthouse') ?? '', /does not name/);
    assert.match(check('tools/edge/edge.ts', '@kiosk/svg') ?? '', /does not name/, 'a library only as a declared dependency');
    assert.match(check('tools/fleet/run.ts', '../svg') ?? '', /reaches outside its package/, 'a library by its package name');
    assert.match(check('tools/svg/index.ts', '@kiosk/surface') ?? '', /uses nothing of the product/);
    assert.match(check('tools/svg/index.ts', '../../server/config') ?? '', /reaches outside its package/);
    assert.match(
      check('tools/svg/index.test.ts', '../../test/server') ?? '',
      /reaches outside its package/,
      'the harnesses are for the tools, not their libraries',
    );
    assert.match(check('tools/svg/index.ts', '@kiosk/fleet') ?? '', /imports another tool/);
    assert.match(check('server/app.ts', '../tools/edge/web-acl') ?? '', /product code imports a tool/);
    assert.match(check('scripts/deploy/x.test.ts', '../../tools/edge/web-acl') ?? '', /product code imports a tool/);
    assert.match(check('test/x.ts', '@kiosk/edge') ?? '', /product code imports a tool/);
    assert.match(check('server/app.ts', '@kiosk/svg') ?? '', /product code imports a tool/);
    assert.match(check('surface/index.ts', '../test/server') ?? '', /imports the test harness/, 'the surface hands no harness to the tools');
    assert.match(check('scripts/built-server.ts', '../test/wait') ?? '', /imports the test harness/);
    assert.match(check('server/site.ts', '../test/server') ?? '', /imports the test harness/);
    for (const [file, specifier] of [
      ['tools/edge/edge.ts', './web-acl'],
      ['tools/edge/edge.ts', '@kiosk/surface'],
      ['tools/edge/edge.ts', 'yaml'],
      ['tools/edge/edge.ts', 'node:fs'],
      ['tools/edge/edge.services.test.ts', '../../test/moto'],
      ['tools/fleet/run.ts', '@kiosk/svg'],
      ['scripts/start.ts', '../server/config'],
      ['test/server.ts', '../scripts/built-server'],
      ['test/moto.ts', './server'],
      ['server/app.services.test.ts', '../test/server'],
      ['surface/index.ts', '../scripts/ports'],
    ] as const) {
      assert.equal(check(file, specifier), null, `${file} -> ${specifier}`);
    }
  });
});
