// Every place a program reads the Node.js version from agrees: what the tests run on
// (.node-version, which scripts/setup-system.sh installs), what npm and scripts/check-node.cjs
// accept (package.json "engines") and what Elastic Beanstalk runs (the EB CLI's default
// platform). What an older Node is told is scripts/check-node.services.test.ts's.
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
