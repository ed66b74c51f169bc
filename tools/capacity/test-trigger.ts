import type { ScalingPolicy } from './policy';

/**
 * Elastic Beanstalk's CPU trigger (above 75% for 2 minutes: +1; below 35%: −1) on a group of 1 to 5,
 * with instant health checks and no deregistration delay: where the tests' hand-worked timelines
 * start from, each test changing what its timeline is about.
 */
export function cpuTrigger(changes: Partial<ScalingPolicy> = {}): ScalingPolicy {
  return {
    measureName: 'CPUUtilization',
    statistic: 'Average',
    unit: 'Percent',
    periodS: 60,
    breachDurationS: 120,
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    metricResolutionS: 60,
    upperThreshold: 75,
    lowerThreshold: 35,
    upperIncrement: 1,
    lowerIncrement: -1,
    minSize: 1,
    maxSize: 5,
    cooldownS: 120,
    healthCheckIntervalS: 10,
    healthyThreshold: 2,
    unhealthyThreshold: 3,
    deregistrationDelayS: 0,
    instanceType: null,
    ...changes,
  };
}
