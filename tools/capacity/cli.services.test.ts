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
      '--edge',
      '--edge-rate',
      '--edge-locations',
      '--front-hit',
      '--anchor-rate',
      '--regional-caches',
      '--pushes-per-s',
      '--purge-batch',
      '--front-lifetime',
      '--article-lifetime',
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

  test('--edge: origin requests per 1,000 views and instances, today against purge-driven; the seed draws the site, the flags reach the model', () => {
    const args = ['--edge', '--ssr-per-vcpu', '22.5', '--shell-per-vcpu', '200', '--seed', '3'];
    const out = capacity(...args);
    assert.equal(out.status, 0, out.stderr);
    assert.match(out.stdout, /^At 3,000 page views\/s at the edge, origin requests per 1,000 page views:$/m);
    assert.match(out.stdout, /^today( +[\d.,]+){5}$/m);
    assert.match(out.stdout, /^purge-driven( +[\d.,]+){5}$/m);
    assert.match(out.stdout, /^ {2}Edge locations: [\d,]+ \(calibrated: today's front page answered at the edge for 80% of its views at 1,000 views\/s/m);
    assert.match(
      out.stdout,
      /^Purge-driven lifetimes: [\d.]+× fewer origin requests per 1,000 page views than today \(target: at least 5×\): (met|not met)\.$/m,
    );
    assert.match(out.stdout, /^Instances that server-render every page at 3,000 views\/s, at 100% CPU: today \d+, purge-driven \d+ \(MinSize \d+\)\.$/m);
    // The distribution's Origin Shield is the default regional cache, and its requests are priced.
    assert.match(
      out.stdout,
      /^ {2}Regional edge caches: 1, the distribution's Origin Shield \(eu-west-1, \.ebextensions\/10-cloudfront\.config\): every fetch goes through it/m,
    );
    assert.match(out.stdout, /^Requests reaching Origin Shield from the edge, its own bill, at most .* at \$0\.009 per 10,000/m);
    assert.match(
      out.stdout,
      /^ {2}purge-driven: [\d.,]+ per 1,000 page views, \$[\d.,]+ per million page views; \$[\d.,]+ a month at 3,000 views\/s all month$/m,
    );
    // The purge budget's table, the default among its rows.
    assert.match(out.stdout, /^The purge budget \(EDGE_PURGE_MONTHLY_PATHS\) at 1 push\/s all month/m);
    assert.match(out.stdout, /^300,000 \(default\) +\$1,495 /m);
    assert.match(out.stdout, /^unlimited \(0\) +- +1 s /m);
    assert.equal(capacity(...args).stdout, out.stdout, 'the same seed, the same report');
    const none = capacity(...args, '--regional-caches', '0');
    assert.match(none.stdout, /^ {2}Regional edge caches: none modelled \(--regional-caches 0\): every edge location's miss reaches the origin$/m);
    assert.doesNotMatch(none.stdout, /Origin Shield/);

    const json = (...more: string[]) => {
      const run = capacity(...args, '--json', ...more);
      assert.equal(run.status, 0, run.stderr);
      return JSON.parse(run.stdout) as { comparison: { locations: number; purged: { perThousand: number; originPerS: Record<string, number> } } };
    };
    const base = json();
    const otherSite = JSON.parse(capacity('--edge', '--ssr-per-vcpu', '22.5', '--shell-per-vcpu', '200', '--seed', '4', '--json').stdout);
    assert.notEqual(otherSite.comparison.purged.perThousand, base.comparison.purged.perThousand, 'another seed, other sections and tags');
    assert.ok(json('--article-lifetime', '4h').comparison.purged.originPerS.article! < base.comparison.purged.originPerS.article!);
    assert.ok(json('--pushes-per-s', '5').comparison.purged.perThousand > base.comparison.purged.perThousand);
    assert.equal(json('--edge-locations', '50').comparison.locations, 50);
    // One regional cache by default, the distribution's: fewer origin requests than none, the same as --regional-caches 1.
    assert.ok(json('--regional-caches', '0').comparison.purged.perThousand > base.comparison.purged.perThousand);
    assert.equal(json('--regional-caches', '1').comparison.purged.perThousand, base.comparison.purged.perThousand);
  });

  test('bad --edge options are a clear message and exit 2', () => {
    for (const [args, message] of [
      [['--front-lifetime', '0'], /--front-lifetime must be at least 1 s/],
      [['--article-lifetime', 'forever'], /--article-lifetime: "forever" is not a duration/],
      [['--front-hit', '1'], /--front-hit must be a share above 0, below 1/],
      [['--edge-locations', '2.5'], /--edge-locations must be a whole number from 1 to 100000/],
      [['--recommend'], /--edge and --recommend: one or the other/],
      [['--front-hit', '0.999', '--anchor-rate', '0.001'], /no count of edge locations gives today's front page a 99\.9% hit ratio/],
    ] as const) {
      const out = capacity('--edge', ...args, '--ssr-per-vcpu', '22.5', '--shell-per-vcpu', '200');
      assert.equal(out.status, 2, `${args.join(' ')}: ${out.stderr}`);
      assert.match(out.stderr, message);
      assert.doesNotMatch(out.stderr, /\n\s+at /, 'no stack trace');
    }
    const without = capacity('--article-lifetime', '2h', '--ssr-per-vcpu', '22.5', '--shell-per-vcpu', '200');
    assert.equal(without.status, 2);
    assert.match(without.stderr, /--article-lifetime goes with --edge/);
  });

  test('a missing bench file is a clear error, exit 2', () => {
    const out = capacity('--bench', path.join(fixtures, 'no-such.json'));
    assert.equal(out.status, 2);
    assert.match(out.stderr, /--bench .*no-such\.json: no such file/);
  });
});
