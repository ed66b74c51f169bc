// Each mechanism the simulator takes from AWS's documentation, on a timeline worked out by hand
// (docs/capacity-planning.md cites the pages). Small numbers: one instance renders 100 pages/s or
// answers 1,000 shells/s; no CDN and one view per session, so every view is a page load at the
// origin, and CPU on n instances taking traffic at v views/s is v / (100 n), at most 100%.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { drawLaunches, healthyAfterS, type LaunchTiming } from './launch';
import { designPolicyReading, type ScalingPolicy } from './policy';
import { cpuTrigger } from './test-trigger';
import { simulate, type SimulationInput } from './simulate';
import { summarize } from './summary';

const policy = cpuTrigger();

const fixed = (timing: LaunchTiming, warmingCpu = 0.1) => ({ draw: () => timing, warmingCpu });

function run(overrides: Partial<Omit<SimulationInput, 'policy'>> & { policy?: Partial<ScalingPolicy> }) {
  return simulate({
    capacity: { vcpus: 1, ssrPerS: 100, shellPerS: 1000, apiCost: 0.1 },
    traffic: { cdnHit: 0, pagesPerSession: 1 },
    rateAt: () => 90,
    durationS: 600,
    launch: fixed({ inServiceS: 30, appUpS: 30, firstCheckS: 0 }),
    metricDelayS: 0,
    initialInstances: 1,
    ...overrides,
    policy: { ...policy, ...overrides.policy },
  });
}

describe('the metric delay: a 1-minute datapoint reaches the alarm some time after its minute', () => {
  test('90% CPU from 0:00, two datapoints to breach: ALARM at 2:00, 3:00 or 4:00 with no, a 60 s or a 90 s delay', () => {
    // Datapoints end at 1:00 and 2:00 (both 90%), and are seen at end + delay; the alarm looks every minute.
    //   delay 0:   both seen at 2:00                          → ALARM, +1 at 2:00
    //   delay 60:  1:00's seen at 2:00, 2:00's at 3:00        → ALARM at 3:00
    //   delay 90:  seen at 2:30 and 3:30; next looks at 3:00 (one seen), 4:00 → ALARM at 4:00
    const firstAction = (metricDelayS: number) => run({ metricDelayS }).actions[0]!.atS;
    assert.deepEqual([firstAction(0), firstAction(60), firstAction(90)], [120, 180, 240]);
    const delayed = run({ metricDelayS: 90 });
    assert.deepEqual(
      delayed.datapoints.slice(0, 2).map((d) => [d.atS, d.availableAtS, d.value]),
      [
        [60, 150, 90],
        [120, 210, 90],
      ],
    );
  });
});

describe('alarm evaluation: EvaluationPeriods (N) and DatapointsToAlarm (M)', () => {
  // 90% in minute 0, 50% in minute 1, 90% in minute 2, then 50% (the new instance is not needed).
  const wave = (t: number) => (t < 60 || (t >= 120 && t < 180) ? 90 : 50);

  test('2 of 3: datapoints 90, 50, 90 put the alarm in ALARM at 3:00; 50, 90, 37.5 take it back to OK at 4:00', () => {
    // At 1:00 and 2:00 fewer than 3 datapoints exist: no state yet. At 3:00 [90, 50, 90]: 2 breach ≥ M = 2.
    // The +1 launched at 3:00 takes traffic at 3:30: 3:00–4:00 is 30 s at 50% and 30 s at 25% on 2 = 37.5%;
    // at 4:00 the window is [50, 90, 37.5]: 1 breach < 2. The low alarm (below 35%) sees 4:00–5:00 and
    // 5:00–6:00 at 25%: at 6:00 [37.5, 25, 25] has 2 below 35 → −1.
    const result = run({ rateAt: wave, policy: { evaluationPeriods: 3, datapointsToAlarm: 2, breachDurationS: 180 } });
    assert.deepEqual(
      result.alarmChanges.filter((c) => c.alarm === 'high'),
      [
        { atS: 180, alarm: 'high', state: 'ALARM' },
        { atS: 240, alarm: 'high', state: 'OK' },
      ],
    );
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.direction, a.from, a.to]),
      [
        [180, 'up', 1, 2],
        [360, 'down', 2, 1],
      ],
    );
  });

  test('3 of 3 (what EB creates: it sets no DatapointsToAlarm): the same datapoints never alarm', () => {
    const result = run({ rateAt: wave, policy: { evaluationPeriods: 3, datapointsToAlarm: 3, breachDurationS: 180 } });
    assert.deepEqual(
      result.alarmChanges.filter((c) => c.alarm === 'high'),
      [],
    );
    assert.deepEqual(result.actions, []);
  });
});

describe('launch to traffic: InService, the deployment, the load balancer health checks', () => {
  const check = { intervalS: 10, healthyThreshold: 2, unhealthyThreshold: 3 };

  test('an app up before UnhealthyThresholdCount failures needs one passing check (the target is still initial)', () => {
    // Registered at 30 s, checks at 30 (fails), 40 (fails), 50: up since 45, passes → traffic at 50 s.
    assert.equal(healthyAfterS({ inServiceS: 30, appUpS: 45, firstCheckS: 0 }, check), 50);
  });

  test('an app up after them needs HealthyThresholdCount passes in a row', () => {
    // Checks at 37, 47, 57 fail: unhealthy after 3. App up at 90: passes at 97 and 107 → traffic at 107 s.
    assert.equal(healthyAfterS({ inServiceS: 30, appUpS: 90, firstCheckS: 7 }, check), 107);
    // Same with the first check on the registration: fails at 30, 40, 50, …, 80; passes at 90 and 100.
    assert.equal(healthyAfterS({ inServiceS: 30, appUpS: 90, firstCheckS: 0 }, check), 100);
  });

  test('launch and deployment times are drawn per instance within their ranges, the same for the same seed', () => {
    const ranges = { inService: { minS: 30, maxS: 60 }, deploy: { minS: 60, maxS: 120 } };
    const draws = (seed: number) => {
      const draw = drawLaunches(ranges, check, seed);
      return Array.from({ length: 500 }, draw);
    };
    const first = draws(1);
    assert.deepEqual(first, draws(1));
    assert.notDeepEqual(first, draws(2));
    for (const d of first) {
      assert.ok(d.inServiceS >= 30 && d.inServiceS <= 60, `InService at ${d.inServiceS}`);
      assert.ok(d.appUpS - d.inServiceS >= 60 && d.appUpS - d.inServiceS <= 120, `deployed in ${d.appUpS - d.inServiceS}`);
      assert.ok(d.firstCheckS >= 0 && d.firstCheckS < 10 && Number.isInteger(d.firstCheckS));
    }
    // A distribution, not one number: 500 draws spread over most of each range.
    const inService = first.map((d) => d.inServiceS);
    assert.ok(Math.min(...inService) <= 32 && Math.max(...inService) >= 58);
  });
});

describe('the cooldown starts when the last new instance is InService, and the alarm invokes the policy every period', () => {
  test('250 views/s: +1 at 2:00, 5:00 and 8:00; invocations in between meet the cooldown', () => {
    // Launch: InService 30 s, app up at 90 s, checks from 30 s: 30, 40, 50 fail (unhealthy), 90 and 100
    // pass → traffic 100 s after launch. Warming instances report 100% here, so the alarm stays in ALARM.
    // CPU at 250 views/s: 100% on 1 and 2 instances, 83% on 3, 62.5% on 4.
    //   2:00 ALARM, +1 → InService 2:30, traffic 3:40, cooldown to 2:30 + 120 s = 4:30
    //   3:00, 4:00 invoked again (ALARM, every 1-minute period): cooldown
    //   5:00 +1 → InService 5:30, traffic 6:40, cooldown to 7:30; 6:00, 7:00 cooldown
    //   8:00 still above 75% (83% on 3) → +1 → InService 8:30, traffic 9:40, cooldown to 10:30
    // Counted from traffic instead (the simpler model), the second +1 would wait for 3:40 + 120 s: 6:00.
    const result = run({
      rateAt: () => 250,
      launch: fixed({ inServiceS: 30, appUpS: 90, firstCheckS: 0 }, 1),
      durationS: 600,
    });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.to, a.inServiceAtS, a.readyAtS, a.cooldownUntilS]),
      [
        [120, 2, 150, 220, 270],
        [300, 3, 330, 400, 450],
        [480, 4, 510, 580, 630],
      ],
    );
    assert.deepEqual(
      result.invocations.filter((i) => i.atS <= 480).map((i) => [i.atS, i.outcome]),
      [
        [120, 'scaled'],
        [180, 'cooldown'],
        [240, 'cooldown'],
        [300, 'scaled'],
        [360, 'cooldown'],
        [420, 'cooldown'],
        [480, 'scaled'],
      ],
    );
  });

  test('with a 5-minute period the alarm invokes the policy every 5 minutes, not every minute', () => {
    // One datapoint of 5 minutes breaches: ALARM at 5:00, +1 (in service and taking traffic at 5:30, no
    // cooldown). The alarm is looked at every minute but invokes again only a period later, at 10:00,
    // when 2 instances are still at 100% (125 views/s each).
    const result = run({
      rateAt: () => 250,
      durationS: 660,
      policy: { periodS: 300, metricResolutionS: 300, breachDurationS: 300, evaluationPeriods: 1, datapointsToAlarm: 1, cooldownS: 0 },
    });
    assert.deepEqual(
      result.invocations.filter((i) => i.alarm === 'high').map((i) => [i.atS, i.outcome]),
      [
        [300, 'scaled'],
        [600, 'scaled'],
      ],
    );
  });
});

describe("warming instances report their own low CPU, in the group's average the alarm watches", () => {
  // 180 views/s: 100% on 1 instance (with shells), 90% on 2, 60% on 3. Launch: InService 30 s, app up
  // at 150 s, checks fail at 30, 40, 50 (unhealthy), pass at 150 and 160 → traffic 160 s after launch.
  const slow = { inServiceS: 30, appUpS: 150, firstCheckS: 0 };

  test('at 10% they take the alarm back to OK mid-scale-up: the second +1 waits for two fresh breaches', () => {
    //   2:00 ALARM [100, 100], +1 → InService 2:30, traffic 4:40, cooldown to 2:30 + 120 s = 4:30
    //   datapoint 2:00–3:00: 30 s at 100%, 30 s at (100 + 10) / 2 = 55% → 77.5% (breaches)
    //   3:00 [100, 77.5] ALARM, invoked: cooldown
    //   datapoint 3:00–4:00: 55%.           4:00 [77.5, 55] → OK (1 instance still at 100%, serving shells)
    //   datapoint 4:00–5:00: 40 s at 55%, 20 s at 90% on 2 → 66.7%.   5:00 [55, 66.7] OK
    //   datapoint 5:00–6:00: 90%.           6:00 [66.7, 90] OK (1 of 2)
    //   datapoint 6:00–7:00: 90%.           7:00 [90, 90] ALARM, +1
    const result = run({ rateAt: () => 180, launch: fixed(slow, 0.1), durationS: 480, policy: { cooldownS: 120 } });
    assert.deepEqual(
      result.datapoints.slice(1, 5).map((d) => Math.round(d.value * 10) / 10),
      [100, 77.5, 55, 66.7],
    );
    assert.deepEqual(
      result.alarmChanges.filter((c) => c.alarm === 'high').map((c) => [c.atS, c.state]),
      [
        [120, 'ALARM'],
        [240, 'OK'],
        [420, 'ALARM'],
      ],
    );
    assert.deepEqual(
      result.actions.map((a) => a.atS),
      [120, 420],
    );
    // Shells were still served while the alarm was OK.
    assert.ok(result.seconds[250]!.shell > 0 && result.seconds[250]!.groupCpu < 0.75);
  });

  test('had they reported the busy instances’ CPU, the alarm would have stayed in ALARM: +1 again at 5:00', () => {
    // Every datapoint 100% until 4:40; the cooldown ends at 4:30, so the 5:00 invocation scales.
    const result = run({ rateAt: () => 180, launch: fixed(slow, 1), durationS: 480, policy: { cooldownS: 120 } });
    assert.deepEqual(
      result.actions.slice(0, 2).map((a) => a.atS),
      [120, 300],
    );
  });
});

describe('a scale-in: out of the load balancer at once, the cooldown after the deregistration delay', () => {
  test('60 views/s on 3 instances (20%): −1 at 2:00, the next at 4:00 with a 20 s delay, at 3:00 without', () => {
    // 2:00 low ALARM [20, 20], −1 → 2 instances (30%, still low). Cooldown 60 s from 2:00 + delay:
    //   delay 20: to 3:20, so the 3:00 invocation meets it and 4:00 scales (→ 1, 60%: not low)
    //   delay 0:  to 3:00, so 3:00 scales
    const times = (deregistrationDelayS: number) =>
      run({ rateAt: () => 60, initialInstances: 3, policy: { deregistrationDelayS, cooldownS: 60 } }).actions.map((a) => [a.atS, a.to, a.cooldownUntilS]);
    assert.deepEqual(times(20), [
      [120, 2, 200],
      [240, 1, 320],
    ]);
    assert.deepEqual(times(0), [
      [120, 2, 180],
      [180, 1, 240],
    ]);
  });
});

describe("the newsroom's field policy under the documented mechanics", () => {
  test('the step from 1,000 to 3,000 views/s: +4 a minute later than without the delay, tripled 5 min 45 s after the step', () => {
    // The c5.xlarge: 90 pages/s and 800 shells/s; 80% CDN hits; 3.55 views per session: 40% CPU on 2
    // instances at 1,000 views/s, 100% (shells) at 3,000. The step at 10:00; datapoints seen 60 s late.
    //   datapoints 10:00–11:00 and 11:00–12:00 are 100%, seen at 12:00 and 13:00 → ALARM, +4 at 13:00.
    // Launch: InService 45 s, app up 135 s after launch. The field policy sets no health checks: EB's
    // defaults for an ALB, every 15 s, 5 failures to unhealthy, 3 passes back: checks at 45, 60, 75, 90,
    // 105 fail (unhealthy), 120 fails, 135, 150, 165 pass → traffic 165 s after launch, at 15:45:
    // tripled 5 min 45 s after the step (4 min 30 s in the simpler model: no delay, traffic 150 s after launch).
    // 4 warming instances at 10% and 2 at 100%: 40% from 13:45. Datapoint 13:00–14:00: 45 s at 100%,
    // 15 s at 40% = 85%, seen at 15:00 (still ALARM); 14:00–15:00 at 40%, seen at 16:00: OK.
    const reading = designPolicyReading([], 'test');
    const result = simulate({
      policy: reading.policy,
      capacity: { vcpus: 4, ssrPerS: 90, shellPerS: 800, apiCost: 90 / 800 },
      traffic: { cdnHit: 0.8, pagesPerSession: 3.55 },
      rateAt: (t) => (t < 600 ? 1000 : 3000),
      durationS: 1800,
      launch: fixed({ inServiceS: 45, appUpS: 135, firstCheckS: 0 }, 0.1),
      metricDelayS: 60,
      initialInstances: 2,
    });
    assert.deepEqual(
      result.actions.map((a) => [a.atS, a.from, a.to, a.inServiceAtS, a.readyAtS]),
      [[780, 2, 6, 825, 945]],
    );
    assert.deepEqual(
      result.alarmChanges.filter((c) => c.alarm === 'high').map((c) => [c.atS, c.state]),
      [
        [780, 'ALARM'],
        [960, 'OK'],
      ],
    );
    const summary = summarize(result, { atS: 600, note: 'the step' }, null);
    assert.equal(summary.timeToTripleS, 345);
    assert.equal(summary.lastShellAtS, 944);
  });
});
