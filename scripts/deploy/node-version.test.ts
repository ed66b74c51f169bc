// Every place that names the Node.js version agrees: what the tests run on (.node-version, which
// scripts/setup-system.sh installs), what npm accepts (package.json "engines"), what Elastic
// Beanstalk runs (the EB CLI's default platform) and what the README and the deployment guide
// tell people.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { root } from './ebextensions';

const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const nodeVersion = read('.node-version').trim();
const major = Number(/^(\d+)\.\d+\.\d+$/.exec(nodeVersion)?.[1]);

test('.node-version names one exact release', () => {
  assert.match(nodeVersion, /^\d+\.\d+\.\d+$/);
  assert.ok(major >= 24, `Node ${nodeVersion}: the project needs 24 or newer`);
});

test('package.json "engines" asks for that major version', () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
  assert.equal(engines, `>=${major}`);
});

test('the tests run on it: a test process is the Node of .node-version', () => {
  assert.equal(process.versions.node.split('.')[0], String(major), `running on ${process.version}; run scripts/setup-system.sh`);
});

test("Elastic Beanstalk's default platform is that Node's branch on Amazon Linux 2023", () => {
  const config = YAML.parse(read('.elasticbeanstalk/config.yml')) as { global: { default_platform: string }; deploy: { artifact: string } };
  assert.equal(config.global.default_platform, `Node.js ${major} running on 64bit Amazon Linux 2023`);
  assert.equal(config.deploy.artifact, 'bundle/kiosk.zip');
});

test('the README names that version as the prerequisite, and the deployment guide that platform branch', () => {
  assert.match(read('README.md'), new RegExp(`Prerequisite: \\*\\*Node\\.js ${major}\\*\\*`));
  const deploy = read('docs/deploy.md');
  const platforms = [...deploy.matchAll(/Node\.js (\d+) running on 64bit Amazon Linux 2023/g)].map((m) => Number(m[1]));
  assert.ok(platforms.length > 0, 'docs/deploy.md names no Elastic Beanstalk platform branch');
  assert.deepEqual([...new Set(platforms)], [major], 'a platform branch in docs/deploy.md names another Node version');
});
