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
      '--custom-metric-delay',
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
      '--day',
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

  test('bad launch options are a clear message and exit 2, never a stack trace', () => {
    for (const [args, message] of [
      [['--boot', '150s'], /--boot is gone: launch to traffic is now --in-service and --deploy/],
      [['--deploy', '5m-1m'], /--deploy: "5m-1m" ends before it starts/],
      [['--in-service', 'soon'], /--in-service: "soon" is not a duration/],
      [['--runs', '0'], /--runs must be a whole number from 1 to 1000/],
      [['--warming-cpu', '2'], /--warming-cpu must be a share from 0 to 1/],
      [['--meet-share', '0'], /--meet-share must be a share above 0/],
    ] as const) {
      const out = capacity(...args, '--ssr-per-vcpu', '22.5', '--shell-per-vcpu', '200');
      assert.equal(out.status, 2, args.join(' '));
      assert.match(out.stderr, message);
      assert.doesNotMatch(out.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  test("--recommend on the repository's policy prints its verdict on the objective", () => {
    const out = capacity('--recommend', '--ssr-per-vcpu', '22.5', '--shell-per-vcpu', '200', '--runs', '5');
    assert.equal(out.status, 0, out.stderr);
    const configured = /The policy as configured:\n.*\n.*\n {2}(\d+) +\+(\d+) .* {2}(yes \(\d+\/5 runs\)|no: .*)$/m.exec(out.stdout);
    assert.ok(configured, out.stdout);
    const minSize = /aws:autoscaling:asg MinSize = (\d+) {2}\(\.ebextensions\/01-capacity\.config\)/.exec(out.stdout);
    assert.equal(configured[1], minSize?.[1], 'the row is the policy read from .ebextensions');
    assert.match(out.stdout, /^Recommended: (CPU|overload|both)[^\n]*, with MinSize \d+: meets it in \d+ of 5 runs/m);
    assert.match(out.stdout, /^ {2}both, as configured +2 /m);
    assert.match(out.stdout, /^(With the CPU trigger alone: MinSize \d+, UpperBreachScaleIncrement \d+|No MinSize from)/m);
  });

  test('a missing bench file is a clear error, exit 2', () => {
    const out = capacity('--bench', path.join(fixtures, 'no-such.json'));
    assert.equal(out.status, 2);
    assert.match(out.stderr, /--bench .*no-such\.json: no such file/);
  });
});
