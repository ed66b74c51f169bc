// The EC2 Auto Scaling mechanisms beside EB's trigger, each on a timeline worked out by hand
// (docs/capacity-planning.md cites AWS's pages). Small numbers: one instance renders 100 pages/s
// or answers 1,000 shells/s; no CDN, one view per session, so every view is a page load. On n
// instances at v views/s the CPU is v / (100 n) up to 100%; past that each instance renders
// (1 - h/1000) / 0.009 of its h = v/n pages and answers the rest with the shell: 150 views/s on
// one instance is 37.04% shells, 180 is 49.38%, 400 on two is 55.56%.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExpression } from './metric-math';
import type { AlarmSpec, MetricSource, ResourcePolicy, StepPolicy } from './policies';
import type { ScalingPolicy } from './policy';
import { cpuTrigger } from './test-trigger';
import { simulate, type SimulationInput } from './simulate';

const trigger = cpuTrigger({ maxSize: 10 });

const shellShare = 'IF(ssr + shell + nginxShell > 0, 100 * (shell + nginxShell) / (ssr + shell + nginxShell), 0)';
const pages: { id: string; source: MetricSource }[] = [
  { id: 'ssr', source: 'serverRendered' },
  { id: 'shell', source: 'shell' },
  { id: 'nginxShell', source: 'nginxShell' },
];

function alarm(expression: string, metrics: AlarmSpec['metrics'], rest: Partial<AlarmSpec> = {}): AlarmSpec {
  return {
    name: 'alarm',
    metrics,
    expression: parseExpression(expression),
    periodS: 10,
    evaluationPeriods: 1,
    datapointsToAlarm: 1,
    threshold: 1,
    comparison: 'GreaterThanThreshold',
    ...rest,
  };
}

function step(spec: AlarmSpec, steps: StepPolicy['steps'], rest: Partial<StepPolicy> = {}): StepPolicy {
  return {
    kind: 'step',
    name: 'policy',
    alarm: spec,
    adjustmentType: 'PercentChangeInCapacity',
    steps,
    minAdjustmentMagnitude: null,
    warmupS: null,
    aggregation: 'Average',
    ...rest,
  };
}

type Overrides = Partial<Omit<SimulationInput, 'policy' | 'resources'>> & { policy?: Partial<ScalingPolicy> };

function run(policies: ResourcePolicy[], overrides: Overrides, defaultInstanceWarmupS: number | null = null) {
  return simulate({
    capacity: { vcpus: 1, ssrPerS: 100, shellPerS: 1000, apiCost: 0.1 },
    traffic: { cdnHit: 0, pagesPerSession: 1 },
    rateAt: () => 150,
    durationS: 600,
    launch: { draw: () => ({ inServiceS: 30, appUpS: 30, firstCheckS: 0 }), warmingCpu: 0.1 },
    metricDelayS: 0,
    customMetricDelayS: 0,
    initialInstances: 1,
    trigger: { up: false, down: false },
    ...overrides,
    policy: { ...trigger, ...overrides.policy },
    resources: { defaultInstanceWarmupS, policies },
  });
}

const changes = (result: ReturnType<typeof run>, name = 'alarm') => result.alarmChanges.filter((c) => c.alarm === name).map((c) => [c.atS, c.state]);
const calls = (result: ReturnType<typeof run>, name = 'alarm') => result.invocations.filter((i) => i.alarm === name).map((i) => [i.atS, i.outcome]);

describe("metric math on Kiosk's counts at their real period, seen a delay after it, evaluated every 10 s or every minute", () => {
  // 150 views/s on one instance from 0:00, MaxSize 1: the alarm only tells, the policy cannot add.
  const at = (spec: Partial<AlarmSpec>, customMetricDelayS = 0) =>
    run([step(alarm(shellShare, pages, spec), [{ lower: 0, upper: null, adjustment: 100 }])], { customMetricDelayS, policy: { maxSize: 1 }, durationS: 200 });

  test('10 s periods, 3 of 3: ALARM at 0:30 with no delay, at 0:40 (the next 10 s look) with 5 s, every datapoint 37.04%', () => {
    const now = at({ evaluationPeriods: 3, datapointsToAlarm: 3 });
    assert.deepEqual(
      now.alarmDatapoints.alarm!.slice(0, 3).map((d) => [d.atS, d.availableAtS, Math.round(d.value * 100) / 100]),
      [
        [10, 10, 37.04],
        [20, 20, 37.04],
        [30, 30, 37.04],
      ],
    );
    assert.deepEqual(changes(now), [[30, 'ALARM']]);
    // In ALARM the policy is invoked every period: every 10 s.
    assert.deepEqual(calls(now).slice(0, 3), [
      [30, 'at limit'],
      [40, 'at limit'],
      [50, 'at limit'],
    ]);
    assert.deepEqual(changes(at({ evaluationPeriods: 3, datapointsToAlarm: 3 }, 5)), [[40, 'ALARM']]);
  });

  test('a 1-minute period: ALARM at 1:00, or 2:00 with a 60 s delay, invoked once a minute', () => {
    const minute = at({ periodS: 60 });
    assert.deepEqual(changes(minute), [[60, 'ALARM']]);
    assert.deepEqual(
      calls(minute).map(([t]) => t),
      [60, 120, 180],
    );
    assert.deepEqual(changes(at({ periodS: 60 }, 60)), [[120, 'ALARM']]);
  });

  test("the same share of Node's Shell alone never alarms: the shells are Nginx's", () => {
    const nodeOnly = 'IF(ssr + shell > 0, 100 * shell / (ssr + shell), 0)';
    const result = run([step(alarm(nodeOnly, pages.slice(0, 2)), [{ lower: 0, upper: null, adjustment: 100 }])], { durationS: 200 });
    assert.deepEqual(changes(result), []);
    assert.ok(result.seconds[100]!.shell > 50);
  });

  test("an expression over EC2's CPU and Kiosk's counts is seen when the later of the two is: 60 s after the minute", () => {
    const guard = alarm('IF(shell + nginxShell > 0, 100, cpu)', [{ id: 'cpu', source: 'cpu' }, ...pages.slice(1)], {
      periodS: 60,
      threshold: 35,
      comparison: 'LessThanThreshold',
    });
    const result = run([step(guard, [{ lower: null, upper: 0, adjustment: -1 }], { adjustmentType: 'ChangeInCapacity' })], {
      metricDelayS: 60,
      rateAt: () => 20,
      durationS: 120,
    });
    assert.deepEqual(
      result.alarmDatapoints.alarm!.map((d) => [d.atS, d.availableAtS, d.value]),
      [
        [60, 120, 20],
        [120, 180, 20],
      ],
    );
  });
});

describe('step scaling: breaches within one step while instances warm up make one activity; no cooldown', () => {
  // The shell share over 10 s, 1 of 1, above 1%: +100% from 1 to 49 points above, +300% beyond.
  // 150 views/s until 1:00, 400 after. A new instance is InService and takes traffic 30 s after launch.
  //   0:10 datapoint 37.04% → +100% of 1 → 2, launched 0:10, traffic 0:40
  //   0:20, 0:30, 0:40 ALARM again: the new instance is warming (to 0:40 + warm-up), capacity still 1 → 2: no change
  //   from 0:40 two instances at 75/s: no shell; 0:50 OK
  //   1:00 400 views/s, 200 on each: 55.56% → 1:10 ALARM, +300% of the 1 instance past its warm-up → 4: two more, not three
  //   from 1:40 four instances at 100/s each: no shell; 1:50 OK
  // With no warm-up an instance counts from InService: at 0:40 the datapoint of 0:30–0:40 (37.04%)
  // meets 2 instances and asks +100% of them → 4; at 1:10 those 4 are InService (two not yet
  // taking traffic) and +300% of 4 → 16, held at MaxSize 10.
  const policy = (warmupS: number) =>
    step(
      alarm(shellShare, pages),
      [
        { lower: 0, upper: 49, adjustment: 100 },
        { lower: 49, upper: null, adjustment: 300 },
      ],
      { warmupS },
    );
  const spike = (t: number) => (t < 60 ? 150 : 400);

  test('with a 120 s warm-up: +1 at 0:10 and +2 at 1:10, 60 s apart', () => {
    const result = run([policy(120)], { rateAt: spike, durationS: 180 });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.from, a.to, a.readyAtS]),
      [
        [10, 1, 2, 40],
        [70, 2, 4, 100],
      ],
    );
    assert.deepEqual(changes(result), [
      [10, 'ALARM'],
      [50, 'OK'],
      [70, 'ALARM'],
      [110, 'OK'],
    ]);
    assert.deepEqual(
      calls(result).filter(([t]) => (t as number) <= 100),
      [
        [10, 'scaled'],
        [20, 'no change'],
        [30, 'no change'],
        [40, 'no change'],
        [70, 'scaled'],
        [80, 'no change'],
        [90, 'no change'],
        [100, 'no change'],
      ],
    );
    assert.equal(result.seconds[100]!.shell, 0);
  });

  test('with none, instances not yet taking traffic count as capacity: 4 at 0:40, MaxSize 10 at 1:10', () => {
    const result = run([policy(0)], { rateAt: spike, durationS: 180 });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.to]),
      [
        [10, 2],
        [40, 4],
        [70, 10],
      ],
    );
  });
});

describe("the group's default instance warmup", () => {
  // EB's trigger (+1 above 75% for 2 of 2 minutes, cooldown 120 s) at 180 views/s on 1 instance:
  // a new one is InService 30 s after launch and takes traffic 160 s after (checks fail at 30, 40,
  // 50 s; the app is up at 150 s; passes at 150 and 160 s), reporting 10% CPU meanwhile.
  const slow = { draw: () => ({ inServiceS: 30, appUpS: 150, firstCheckS: 0 }), warmingCpu: 0.1 };

  test("keeps a warming instance out of the group's CPU: the alarm stays in ALARM and the second +1 comes at 5:00, not 7:00", () => {
    //   2:00 ALARM, +1 → InService 2:30, traffic 4:40, counted from 2:30 + 200 s = 5:50; cooldown to 4:30
    //   datapoints: 2:00–3:00 and 3:00–4:00 the old instance alone, 100%; 4:00–5:00: 40 s at 100%, then
    //   the old one at 90% (the new one takes half the load, not yet counted) → 96.7%
    //   5:00 [100, 96.7] ALARM, cooldown over → +1.  Without the warmup: 7:00 (mechanics.test.ts).
    const result = run([], { rateAt: () => 180, durationS: 470, launch: slow, trigger: { up: true, down: false } }, 200);
    assert.deepEqual(
      result.datapoints.slice(2, 6).map((d) => Math.round(d.value * 10) / 10),
      [100, 100, 96.7, 90],
    );
    assert.deepEqual(
      result.actions.map((a) => a.atS),
      [120, 300],
    );
    const without = run([], { rateAt: () => 180, durationS: 470, launch: slow, trigger: { up: true, down: false } });
    assert.deepEqual(
      without.actions.map((a) => a.atS),
      [120, 420],
    );
  });

  test('blocks scale-in until the instances finish warming up; a scale-out under way blocks it too', () => {
    // Two instances at 180 views/s (90%): EB's trigger adds one at 2:00; the rate drops to 40 then.
    // A scale-in policy (-1, the group's CPU below 35%, 1 of 1 minute) is in ALARM from 3:00
    // (2:00–3:00: 30 s at 20%, 30 s at 13.3% = 16.7%). With a 300 s warmup the instance InService
    // at 2:30 warms up until 7:30: invocations at 3:00 to 7:00 wait, 8:00 removes one.
    const scaleIn = step(
      alarm('cpu', [{ id: 'cpu', source: 'cpu' }], { periodS: 60, threshold: 35, comparison: 'LessThanThreshold' }),
      [{ lower: null, upper: 0, adjustment: -1 }],
      {
        adjustmentType: 'ChangeInCapacity',
      },
    );
    const base: Overrides = { rateAt: (t) => (t < 120 ? 180 : 40), initialInstances: 2, durationS: 500, trigger: { up: true, down: false } };
    const warm = run([scaleIn], base, 300);
    assert.deepEqual(calls(warm), [
      [180, 'warming up'],
      [240, 'warming up'],
      [300, 'warming up'],
      [360, 'warming up'],
      [420, 'warming up'],
      [480, 'scaled'],
    ]);
    assert.deepEqual(
      warm.actions.map((a) => [a.atS, a.direction, a.to]),
      [
        [120, 'up', 3],
        [480, 'down', 2],
      ],
    );
    // Without the warmup it goes at 3:00; with the new instance InService only at 3:30, it waits for that.
    assert.deepEqual(calls(run([scaleIn], base)).slice(0, 1), [[180, 'scaled']]);
    const late = run([scaleIn], { ...base, launch: { draw: () => ({ inServiceS: 90, appUpS: 90, firstCheckS: 0 }), warmingCpu: 0.1 } });
    assert.deepEqual(calls(late).slice(0, 2), [
      [180, 'scale-out under way'],
      [240, 'scaled'],
    ]);
  });
});

describe('target tracking on CPU: 3 one-minute datapoints to scale out in proportion, 15 below 90% of the target to scale in', () => {
  // Target 50%, 90 views/s (90% on 1 instance) until 10:00, then 40. Default cooldown 360 s as the warm-up.
  //   1:00, 2:00, 3:00 at 90% → 3:00 AlarmHigh, ceil(1 × 90 / 50) = 2: +1, taking traffic at 3:30 (45% each)
  //   4:00 [90, 90, 67.5] still high: capacity past warm-up is 1, ceil(1 × 67.5 / 50) = 2 = desired: no change
  //   5:00 [90, 67.5, 45]: OK. 45% is not below 45 (90% of 50), so AlarmLow waits for the drop:
  //   from 10:00 20% on each; 15 datapoints below 45 from 11:00 to 25:00 → ceil(2 × 20 / 50) = 1: −1 at 25:00
  const tracking: ResourcePolicy = { kind: 'target-tracking', name: 'cpu50', targetValue: 50, disableScaleIn: false, warmupS: null };
  const rate = (t: number) => (t < 600 ? 90 : 40);

  test('out 3 minutes after the rise, in 15 minutes after the drop', () => {
    const result = run([tracking], { rateAt: rate, durationS: 1560, policy: { cooldownS: 360 } });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.direction, a.from, a.to]),
      [
        [180, 'up', 1, 2],
        [1500, 'down', 2, 1],
      ],
    );
    assert.deepEqual(calls(result, 'cpu50 AlarmHigh'), [
      [180, 'scaled'],
      [240, 'no change'],
    ]);
    assert.deepEqual(changes(result, 'cpu50 AlarmLow'), [[1500, 'ALARM']]);
  });

  test('with DisableScaleIn it never scales in', () => {
    const result = run([{ ...tracking, disableScaleIn: true }], { rateAt: rate, durationS: 1560, policy: { cooldownS: 360 } });
    assert.deepEqual(
      result.actions.map((a) => a.direction),
      ['up'],
    );
  });
});

describe('the scale-in guard: CPU read as 100% in any minute with a shell', () => {
  // 180 views/s on 1 instance: 100% CPU, 49% shells. EB's trigger adds 4 at 2:00 (cooldown 600 s);
  // they are InService at 2:30 but take traffic only at 12:10 (the app is up 10 minutes after
  // launch), reporting 10% meanwhile: the group's CPU is (100 + 4 × 10) / 5 = 28% from 2:30.
  // Datapoints 2:00–3:00 64%, then 28%. A scale-in policy on the plain CPU (below 35%, 2 of 2)
  // goes to ALARM at 5:00 and removes an instance while half the pages get the shell; on the
  // guarded expression every minute reads 100 and nothing is removed.
  const scaleIn = (expression: string, metrics: AlarmSpec['metrics']) =>
    step(
      alarm(expression, metrics, { periodS: 60, evaluationPeriods: 2, datapointsToAlarm: 2, threshold: 35, comparison: 'LessThanThreshold' }),
      [{ lower: null, upper: 0, adjustment: -1 }],
      {
        adjustmentType: 'ChangeInCapacity',
      },
    );
  const scenario: Overrides = {
    rateAt: () => 180,
    durationS: 900,
    launch: { draw: () => ({ inServiceS: 30, appUpS: 600, firstCheckS: 0 }), warmingCpu: 0.1 },
    policy: { upperIncrement: 4, cooldownS: 600 },
    trigger: { up: true, down: false },
  };

  test('on the plain CPU: a scale-in at 5:00 while pages get the shell', () => {
    const result = run([scaleIn('cpu', [{ id: 'cpu', source: 'cpu' }])], scenario);
    assert.deepEqual(
      result.alarmDatapoints.alarm!.slice(2, 5).map((d) => Math.round(d.value)),
      [64, 28, 28],
    );
    const down = result.actions.find((a) => a.direction === 'down');
    assert.deepEqual([down?.atS, down?.from, down?.to], [300, 5, 4]);
    assert.ok(result.seconds[299]!.shell > 0);
  });

  test('guarded: no scale-in at all', () => {
    const result = run([scaleIn('IF(shell + nginxShell > 0, 100, cpu)', [{ id: 'cpu', source: 'cpu' }, ...pages.slice(1)])], scenario);
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.direction]),
      [[120, 'up']],
    );
    assert.ok(result.alarmDatapoints.alarm!.slice(0, 10).every((d) => d.value === 100));
  });
});

describe('policies invoked at the same moment: the one asking for the most capacity wins', () => {
  test("EB's +4 and a step policy's +1, both on 2 minutes above 75% CPU: +4 at 2:00, the step superseded", () => {
    // 90 views/s on 1 instance: 90% CPU; both alarms see 1:00 and 2:00 at 90%.
    const cpuHigh = step(
      alarm('cpu', [{ id: 'cpu', source: 'cpu' }], { periodS: 60, evaluationPeriods: 2, datapointsToAlarm: 2, threshold: 75 }),
      [{ lower: 0, upper: null, adjustment: 1 }],
      {
        adjustmentType: 'ChangeInCapacity',
      },
    );
    const result = run([cpuHigh], { rateAt: () => 90, durationS: 150, policy: { upperIncrement: 4 }, trigger: { up: true, down: false } });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.by, a.from, a.to]),
      [[120, 'trigger', 1, 5]],
    );
    assert.deepEqual(calls(result), [[120, 'superseded']]);
  });
});
