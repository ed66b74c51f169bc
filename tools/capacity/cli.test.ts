// The command end to end on the fixtures: flags, the bench file, the report and JSON.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.join(here, 'capacity.ts');
const fixtures = path.join(here, 'fixtures');

function capacity(...args: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { encoding: 'utf8' });
}

describe('npm run capacity', () => {
  test('--help shows the model, every flag and examples', () => {
    const out = capacity('--help');
    assert.equal(out.status, 0);
    for (const flag of [
      '--bench',
      '--ssr-per-vcpu',
      '--shell-per-vcpu',
      '--vcpus',
      '--api-cost',
      '--ebextensions',
      '--option',
      '--in-service',
      '--deploy',
      '--warming-cpu',
      '--metric-delay',
      '--runs',
      '--seed',
      '--meet-share',
      '--profile',
      '--profile-csv',
      '--duration',
      '--cdn-hit',
      '--pages-per-session',
      '--price',
      '--svg',
      '--json',
      '--recommend',
      '--objective',
      '--hold',
      '--max-shell-share',
      'Examples:',
    ]) {
      assert.ok(out.stdout.includes(flag), flag);
    }
  });

  test('the bench fixture and the map-form policy: per-instance capacity is per core × vCPUs; JSON and SVG written', () => {
    const svg = path.join(os.tmpdir(), `capacity-${process.pid}.svg`);
    const out = capacity(
      '--bench',
      path.join(fixtures, 'bench.json'),
      '--ebextensions',
      path.join(fixtures, 'ebextensions-map'),
      '--json',
      '--svg',
      svg,
      '--price',
      '0.17',
    );
    assert.equal(out.status, 0, out.stderr);
    const report = JSON.parse(out.stdout);
    assert.equal(report.inputs.capacity.vcpus, 4);
    assert.equal(report.inputs.capacity.ssrPerS, 1222 * 4);
    assert.equal(report.inputs.capacity.shellPerS, 7661 * 4);
    assert.equal(report.minutes.length, 40);
    assert.equal(report.summary.shedRequests, 0);
    assert.match(fs.readFileSync(svg, 'utf8'), /^<svg [^>]*>[\s\S]*<\/svg>$/);
    fs.rmSync(svg);
  });

  test('a missing bench file is a clear error, exit 2', () => {
    const out = capacity('--bench', path.join(fixtures, 'no-such.json'));
    assert.equal(out.status, 2);
    assert.match(out.stderr, /--bench .*no-such\.json: no such file/);
  });
});
