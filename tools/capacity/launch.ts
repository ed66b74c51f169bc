// From a scale-out's launch to the instance taking traffic, one instance at a time.
//   launch ─► InService: EC2 starts the instance and Auto Scaling puts it in service, registering
//             it with the load balancer's target group; from here it counts in the group's
//             CPUUtilization and, for the last instance of an activity, the cooldown starts.
//   InService ─► app up: Elastic Beanstalk's bootstrap deploys the bundle and starts Nginx and
//             Node; until then the load balancer's health checks fail.
//   health checks every HealthCheckInterval from registration: a target still in its initial
//             state is healthy after one passing check; after UnhealthyThresholdCount failures
//             it is unhealthy and needs HealthyThresholdCount passes in a row.
// Launch and deploy times are drawn per instance from uniform ranges (docs/capacity-planning.md
// says why these ranges and what AWS documents), so a run is one sample of many.
// A run with the same --seed draws the same instances.
import { seededRandom } from '@kiosk/surface';
import { InputError, parseDuration } from './duration';

export interface HealthCheck {
  intervalS: number;
  healthyThreshold: number;
  unhealthyThreshold: number;
}

/** One instance's times, in seconds from its launch. */
export interface LaunchTiming {
  inServiceS: number;
  /** When /healthz first answers 200. */
  appUpS: number;
  /** First health check, this long after InService (0 ≤ offset < interval). */
  firstCheckS: number;
}

/** When the load balancer first sends the instance traffic, in seconds from launch. */
export function healthyAfterS(timing: LaunchTiming, check: HealthCheck): number {
  let at = timing.inServiceS + timing.firstCheckS;
  let failures = 0;
  let passes = 0;
  let initial = true;
  for (;;) {
    if (at >= timing.appUpS) {
      passes++;
      if (initial || passes >= check.healthyThreshold) return at;
    } else {
      passes = 0;
      failures++;
      if (failures >= check.unhealthyThreshold) initial = false;
    }
    at += check.intervalS;
  }
}

export interface Range {
  minS: number;
  maxS: number;
}

/** "30s-60s", "2m", "90": whole seconds, min ≤ max. */
export function parseRange(raw: string, flag: string): Range {
  const parts = raw.split('-');
  if (parts.length > 2) throw new InputError(`${flag}: "${raw}" is not a duration or a range (90s, 30s-60s)`);
  const minS = parseDuration(parts[0]!, flag);
  const maxS = parts.length === 2 ? parseDuration(parts[1]!, flag) : minS;
  if (maxS < minS) throw new InputError(`${flag}: "${raw}" ends before it starts`);
  return { minS, maxS };
}

export const formatRange = (range: Range) => (range.minS === range.maxS ? `${range.minS} s` : `${range.minS}–${range.maxS} s`);

export interface LaunchRanges {
  inService: Range;
  deploy: Range;
}

/** Draws each launched instance's timing: uniform within each range, whole seconds. */
export function drawLaunches(ranges: LaunchRanges, check: HealthCheck, seed: number): () => LaunchTiming {
  const random = seededRandom(seed);
  const within = (range: Range) => Math.round(range.minS + random() * (range.maxS - range.minS));
  return () => {
    const inServiceS = within(ranges.inService);
    return { inServiceS, appUpS: inServiceS + within(ranges.deploy), firstCheckS: Math.floor(random() * check.intervalS) };
  };
}
