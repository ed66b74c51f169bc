import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { designPolicyReading, type ScalingPolicy } from './policy';
import { cpuTrigger } from './test-trigger';
import { simulate, type SimulationInput } from './simulate';
import { minuteRows, summarize } from './summary';
import { serveOnInstance, type InstanceCapacity } from './workload';

// Small numbers to check by hand: one instance renders 100 pages/s or answers 1,000 shells/s;
// no CDN and one view per session, so every view is a page load at the origin, and CPU on n
// instances at v views/s is v / (100 n) while all pages are server-rendered.
const capacity: InstanceCapacity = { vcpus: 1, ssrPerS: 100, shellPerS: 1000, apiCost: 0.1 };
const traffic = { cdnHit: 0, pagesPerSession: 1 };
const policy = cpuTrigger({ cooldownS: 300 });

function near(actual: number, expected: number, tolerance = 1e-6): void {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected}`);
}

/** The simpler model's boot: InService and answering its first health check bootS after launch, no metric delay. */
function fixedBoot(bootS: number) {
  return { draw: () => ({ inServiceS: bootS, appUpS: bootS, firstCheckS: 0 }), warmingCpu: 0 };
}

function run(overrides: Partial<Omit<SimulationInput, 'policy'>> & { policy?: Partial<ScalingPolicy> }) {
  return simulate({
    capacity,
    traffic,
    rateAt: () => 50,
    durationS: 600,
    launch: fixedBoot(90),
    metricDelayS: 0,
    initialInstances: 1,
    ...overrides,
    policy: { ...policy, ...overrides.policy },
  });
}

describe('one breach', () => {
  test('scale-up fires when BreachDuration of datapoints are above the threshold, not a period before', () => {
    // 90 views/s on one instance: 90% CPU. Datapoints at 60 s and 120 s are both 90 > 75.
    const result = run({ rateAt: () => 90 });
    assert.deepEqual(result.datapoints.slice(0, 2), [
      { atS: 60, availableAtS: 60, value: 90 },
      { atS: 120, availableAtS: 120, value: 90 },
    ]);
    assert.equal(result.actions[0]!.atS, 120);
    assert.deepEqual([result.actions[0]!.from, result.actions[0]!.to, result.actions[0]!.direction], [1, 2, 'up']);
    assert.deepEqual(result.actions[0]!.datapoints, [90, 90]);
  });

  test('one high minute is not a breach', () => {
    const result = run({ rateAt: (t) => (t < 60 ? 90 : 50) });
    assert.equal(result.datapoints[0]!.value, 90);
    assert.deepEqual(result.actions, []);
  });

  test('the breach counts whole periods: high from 0:30 makes the 1:00 datapoint 70%, so it fires at 3:00', () => {
    // (30 s × 50% + 30 s × 90%) / 60 s = 70% ≤ 75: the first period does not breach.
    const result = run({ rateAt: (t) => (t < 30 ? 50 : 90) });
    assert.equal(result.datapoints[0]!.value, 70);
    assert.equal(result.actions[0]!.atS, 180);
  });

  test('with basic monitoring a 5-minute period breaches once, at 5:00', () => {
    const result = run({
      rateAt: () => 90,
      policy: { periodS: 300, metricResolutionS: 300, breachDurationS: 300, evaluationPeriods: 1, datapointsToAlarm: 1 },
    });
    assert.equal(result.datapoints[0]!.atS, 300);
    assert.equal(result.actions[0]!.atS, 300);
  });
});

describe('boot delay', () => {
  test('new instances take traffic --boot seconds after the action, and only then count in the CPU', () => {
    const result = run({ rateAt: () => 90 });
    const readyAt = 120 + 90;
    assert.equal(result.actions[0]!.readyAtS, readyAt);
    assert.deepEqual([result.seconds[readyAt - 1]!.ready, result.seconds[readyAt - 1]!.booting, result.seconds[readyAt - 1]!.cpu], [1, 1, 0.9]);
    assert.deepEqual([result.seconds[readyAt]!.ready, result.seconds[readyAt]!.booting, result.seconds[readyAt]!.cpu], [2, 0, 0.45]);
  });
});

describe('cooldown', () => {
  test('no second action until the cooldown after the instances are ready has passed', () => {
    // 250 views/s stays above 75% CPU on 1, 2 and 3 instances (100%, 100%, 83%) and not on 4 (62.5%).
    // +1 at 120, ready 210, cooldown to 510: next evaluation 540, ready 630, cooldown to 930: next 960.
    const result = run({ rateAt: () => 250, durationS: 1500 });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.to, a.readyAtS, a.cooldownUntilS]),
      [
        [120, 2, 210, 510],
        [540, 3, 630, 930],
        [960, 4, 1050, 1350],
      ],
    );
    assert.ok(
      result.datapoints.filter((d) => d.atS > 120 && d.atS < 540).every((d) => d.value > 75),
      'the alarm stayed in ALARM inside the cooldown',
    );
  });
});

describe('scale-down', () => {
  test('after BreachDuration below LowerThreshold, clamped at MinSize, never below it', () => {
    // 60 views/s on 3 instances: 20% CPU. -2 from 3 with MinSize 2 gives 2, at 120 s, at once.
    // On 2 instances 30% is still low: the low alarm stays in ALARM but the fleet is at MinSize.
    const result = run({ rateAt: () => 60, initialInstances: 3, policy: { minSize: 2, lowerIncrement: -2 } });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.direction, a.from, a.to]),
      [[120, 'down', 3, 2]],
    );
    assert.equal(result.seconds[119]!.ready, 3);
    assert.equal(result.seconds[120]!.ready, 2);
    assert.ok(result.seconds.every((s) => s.ready >= 2));
    assert.ok(result.heldAtLimit.down > 0);
  });
});

describe('shedding', () => {
  test('an instance renders what fits, answers the rest with the shell, and sheds only past all-shell', () => {
    assert.deepEqual(serveOnInstance(80, 0, capacity), { ssr: 80, shell: 0, api: 0, shed: 0, cpu: 0.8 });
    // 200 pages: all shells take 0.2 s; each page rendered instead costs 0.009 s more: (1 - 0.2) / 0.009 = 88.9.
    const overloaded = serveOnInstance(200, 0, capacity);
    near(overloaded.ssr, 800 / 9);
    near(overloaded.shell, 200 - 800 / 9);
    assert.deepEqual([overloaded.shed, overloaded.cpu], [0, 1]);
    assert.deepEqual(serveOnInstance(1000, 0, capacity), { ssr: 0, shell: 1000, api: 0, shed: 0, cpu: 1 });
    // 2,000 pages as shells would take 2 s: half is served, half shed.
    assert.deepEqual(serveOnInstance(2000, 0, capacity), { ssr: 0, shell: 1000, api: 0, shed: 1000, cpu: 1 });
    // /api work comes first: 500 × 0.1 × 0.01 s = 0.5 s; 100 shells 0.1 s; (1 - 0.6) / 0.009 = 44.4 rendered.
    near(serveOnInstance(100, 500, capacity).ssr, 0.4 / 0.009);
  });

  test('a fleet at MaxSize sheds while the load is above its all-shell capacity, and only then', () => {
    // 2 instances at most: 2,000 shells/s. 1,500 views/s: no shed; 2,500: 500/s shed.
    const held = run({ rateAt: () => 1500, initialInstances: 2, policy: { minSize: 2, maxSize: 2 } });
    assert.equal(
      held.seconds.reduce((sum, s) => sum + s.shed, 0),
      0,
    );
    assert.equal(held.seconds[0]!.cpu, 1);
    const over = run({ rateAt: () => 2500, initialInstances: 2, policy: { minSize: 2, maxSize: 2 } });
    near(over.seconds[0]!.shed, 500);
    near(
      over.seconds.reduce((sum, s) => sum + s.shed, 0),
      500 * 600,
    );
    assert.ok(summarize(over, { atS: null, note: '' }, null).heldAtLimit.up > 0);
  });
});

describe("the newsroom's field policy with its c5.xlarge", () => {
  test('a step from 1,000 to 3,000 views/s: +4 at 2 minutes, the fleet tripled 4 min 30 s after the step', () => {
    // 90 pages/s and 800 shells/s per instance; 80% CDN hits; 3.55 views per session.
    // At 3,000 views/s: 600/s at the origin, 169 page loads and 431 /api, 2.42 instance-seconds
    // of work each second: 121% of 2 instances, so the guard serves shells and CPU is 100%.
    // Datapoints at 11:00 and 12:00 breach; +4 at 12:00; ready at 14:30, 40% CPU on 6.
    const reading = designPolicyReading([], 'test');
    const result = simulate({
      policy: reading.policy,
      capacity: { vcpus: 4, ssrPerS: 90, shellPerS: 800, apiCost: 90 / 800 },
      traffic: { cdnHit: 0.8, pagesPerSession: 3.55 },
      rateAt: (t) => (t < 600 ? 1000 : 3000),
      durationS: 2400,
      launch: fixedBoot(150),
      metricDelayS: 0,
      initialInstances: 2,
    });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.from, a.to, a.readyAtS]),
      [[720, 2, 6, 870]],
    );
    const summary = summarize(result, { atS: 600, note: 'the step' }, 0.17);
    assert.equal(summary.timeToTripleS, 270);
    assert.equal(summary.lastShellAtS, 869);
    assert.equal(summary.shedRequests, 0);
    near(summary.peakShellShare, 0.25, 0.01);
    const rows = minuteRows(result);
    assert.equal(rows[9]!.cpu.toFixed(2), '0.40');
    assert.equal(rows[12]!.actions.length, 1);
    assert.equal(rows[15]!.cpu.toFixed(2), '0.40');
    // 2 instances for 12 minutes, then 6 (booting included) for 28: 0.4 + 2.8 instance-hours.
    assert.equal(summary.instanceHours.toFixed(2), '3.20');
  });
});
