// The scaling policy, read from .ebextensions/*.config as Elastic Beanstalk reads its option
// settings, with EB's documented defaults for whatever the files leave out; or the newsroom's
// policy when there is no .ebextensions/. EB's trigger comes from option_settings; the EC2 Auto
// Scaling policies declared beside it in Resources from scaling-resources.ts. Files, commands
// and the rest of a config file are EB's business, not the policy's.
import fs from 'node:fs';
import path from 'node:path';
import { optionSettings, parseConfigFile, type ConfigFile as EbConfigFile } from '@kiosk/surface';
import { InputError } from './duration';
import { noResources, type ScalingResources } from './policies';
import { readScalingResources } from './scaling-resources';

export type Statistic = 'Average' | 'Maximum' | 'Minimum';

/** What the simulation runs: the values after defaults and adjustments, in seconds. */
export interface ScalingPolicy {
  measureName: string;
  statistic: Statistic;
  unit: string;
  /** CloudWatch's period as simulated: Period, or the monitoring interval if that is longer. */
  periodS: number;
  breachDurationS: number;
  /** The datapoints an alarm evaluates (N). */
  evaluationPeriods: number;
  /** Of those, how many must breach for ALARM (M). EB sets no DatapointsToAlarm, so M = N. */
  datapointsToAlarm: number;
  /** Granularity of the instances' CPUUtilization (MonitoringInterval: 60 detailed, 300 basic). */
  metricResolutionS: number;
  upperThreshold: number;
  lowerThreshold: number;
  /** Signed, as EB takes them: UpperBreachScaleIncrement adds, LowerBreachScaleIncrement is negative to remove. */
  upperIncrement: number;
  lowerIncrement: number;
  minSize: number;
  maxSize: number;
  cooldownS: number;
  /** The load balancer's health checks (aws:elasticbeanstalk:environment:process:default). */
  healthCheckIntervalS: number;
  healthyThreshold: number;
  unhealthyThreshold: number;
  /** Seconds a removed instance drains before it is gone (and a scale-in's cooldown starts). */
  deregistrationDelayS: number;
  /** null: the files do not say (EB picks by account, region and platform). */
  instanceType: string | null;
}

export interface SettingRow {
  namespace: string;
  option: string;
  value: string;
  /** A file name, "--option", "field policy", or "EB default". */
  from: string;
}

export interface PolicyReading {
  policy: ScalingPolicy;
  /** The Auto Scaling policies declared in Resources beside EB's trigger. */
  resources: ScalingResources;
  /** One line for the report: where the policy came from. */
  source: string;
  rows: SettingRow[];
  notes: string[];
  warnings: string[];
}

export interface ConfigFile {
  name: string;
  text: string;
}

type Setting = { value: string; from: string };
export type Settings = Map<string, Setting>;

const trigger = 'aws:autoscaling:trigger';
const asg = 'aws:autoscaling:asg';
const instances = 'aws:ec2:instances';
const launch = 'aws:autoscaling:launchconfiguration';
const targetProcess = 'aws:elasticbeanstalk:environment:process:default';

/**
 * The options read, with Elastic Beanstalk's documented defaults ("General options for all
 * environments" in the EB developer guide). null: no fixed default (InstanceTypes depends on
 * account, region and platform; InstanceType is the obsolete form of it).
 */
export const ebDefaults: Record<string, Record<string, string | null>> = {
  [trigger]: {
    MeasureName: 'NetworkOut',
    Statistic: 'Average',
    Unit: 'Bytes',
    Period: '5',
    BreachDuration: '5',
    EvaluationPeriods: '1',
    UpperThreshold: '6000000',
    LowerThreshold: '2000000',
    UpperBreachScaleIncrement: '1',
    LowerBreachScaleIncrement: '-1',
  },
  [asg]: { MinSize: '1', MaxSize: '4', Cooldown: '360' },
  [instances]: { InstanceTypes: null },
  [launch]: { InstanceType: null, MonitoringInterval: '5 minute' },
  // An Application Load Balancer's values; a network load balancer's differ (30 s, 5).
  [targetProcess]: { HealthCheckInterval: '15', HealthyThresholdCount: '3', UnhealthyThresholdCount: '5', DeregistrationDelay: '20' },
};

/** The newsroom's field policy: the autoscaling that met its 5-minute goal, as option settings; the last three are assumed. */
export const designSettings: [string, string, string][] = [
  [trigger, 'MeasureName', 'CPUUtilization'],
  [trigger, 'Statistic', 'Average'],
  [trigger, 'Unit', 'Percent'],
  [trigger, 'Period', '1'],
  [trigger, 'BreachDuration', '2'],
  [trigger, 'EvaluationPeriods', '2'],
  [trigger, 'UpperThreshold', '75'],
  [trigger, 'LowerThreshold', '35'],
  [trigger, 'UpperBreachScaleIncrement', '4'],
  [trigger, 'LowerBreachScaleIncrement', '-2'],
  [asg, 'MinSize', '2'],
  [instances, 'InstanceTypes', 'c5.xlarge'],
  [asg, 'MaxSize', '10'],
  [launch, 'MonitoringInterval', '1 minute'],
];
const designAssumptions = [
  "The field policy gives no MaxSize: 10 assumed (EB's default, 4, would stop the +4 from 2 instances at 4).",
  'The field policy\'s 1-minute period needs 1-minute (detailed) monitoring: MonitoringInterval "1 minute" assumed.',
  "The field policy gives no Cooldown: EB's default, 360 s.",
  "The field policy gives no health checks: EB's defaults for an ALB, every 15 s, 3 passes, 5 failures, and a 20 s deregistration delay.",
];

/** EB's own trigger resources, whose properties a Resources block could change behind the option settings' back. */
const scalingResources = ['AWSEBCloudwatchAlarmHigh', 'AWSEBCloudwatchAlarmLow', 'AWSEBAutoScalingScaleUpPolicy', 'AWSEBAutoScalingScaleDownPolicy'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function key(namespace: string, option: string): string {
  return `${namespace}|${option}`;
}

function record(settings: Settings, warnings: string[], namespace: string, option: string, value: unknown, from: string): void {
  const known = ebDefaults[namespace];
  if (!known) return;
  if (!(option in known)) {
    // Options the simulation does not use (Availability Zones, DisableIMDSv1, ...) are none of
    // its business; a near miss of one it does use is most likely a typo.
    const near = Object.keys(known).find((name) => name.toLowerCase() === option.toLowerCase());
    if (near) warnings.push(`${from}: ${namespace} has no option "${option}" (option names are case-sensitive: ${near}?); ignored.`);
    return;
  }
  if (value === null || value === undefined || typeof value === 'object') {
    warnings.push(`${from}: ${namespace} ${option} is not a plain value (${JSON.stringify(value)}); ignored, so EB's default applies here.`);
    return;
  }
  const previous = settings.get(key(namespace, option));
  if (previous && previous.from !== from && previous.value !== String(value)) {
    warnings.push(
      `${namespace} ${option}: ${from} sets ${String(value)} over ${previous.value} from ${previous.from} (files are applied in alphabetical order).`,
    );
  }
  settings.set(key(namespace, option), { value: String(value), from });
}

function warnAboutResources(resources: unknown, from: string, warnings: string[]): void {
  if (!isRecord(resources)) return;
  for (const name of scalingResources) {
    const resource = resources[name];
    if (!isRecord(resource)) continue;
    const properties = isRecord(resource.Properties) ? Object.keys(resource.Properties) : [];
    warnings.push(
      `${from}: Resources overrides EB's ${name}${properties.length ? ` (${properties.join(', ')})` : ''}; not simulated: EB's trigger is read from option_settings.`,
    );
  }
}

/**
 * Collects the option settings of EB config files, in the order given (EB applies
 * .ebextensions in alphabetical order of file name; the caller sorts), read by the same reader
 * the deployment tests use, which here warns about what it skips instead of refusing it.
 */
export function collectSettings(files: ConfigFile[], warnings: string[], settings: Settings = new Map()): Settings {
  return collect(files, warnings, settings).settings;
}

function collect(files: ConfigFile[], warnings: string[], settings: Settings = new Map()): { settings: Settings; resources: ScalingResources } {
  const warn = (message: string) => warnings.push(message);
  let parsed: EbConfigFile[];
  try {
    parsed = files.flatMap((file) => parseConfigFile(file.name, file.text, warn) ?? []);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  for (const file of parsed) warnAboutResources(file.data.Resources, file.name, warnings);
  const options = optionSettings(parsed, warn);
  for (const s of options) record(settings, warnings, s.namespace, s.option, s.value, s.file);
  return { settings, resources: readScalingResources(parsed, options, warnings) };
}

/** "aws:autoscaling:asg:MaxSize=10": the namespace is everything before the last colon. */
export function parseOverride(raw: string): [string, string, string] {
  const match = /^(aws:[A-Za-z0-9:_-]+):([A-Za-z]+)=(.*)$/.exec(raw);
  if (!match) throw new InputError(`--option takes NAMESPACE:OptionName=value (e.g. aws:autoscaling:asg:MaxSize=10), got "${raw}"`);
  return [match[1]!, match[2]!, match[3]!];
}

function number(get: (ns: string, opt: string) => Setting, namespace: string, option: string, check: (n: number) => boolean, rule: string): number {
  const { value, from } = get(namespace, option);
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || !check(parsed)) {
    throw new InputError(`${namespace} ${option} is "${value}" (${from}): it must be ${rule}.`);
  }
  return parsed;
}

const wholeFrom = (min: number) => (n: number) => Number.isInteger(n) && n >= min;

/** Turns option settings (files, overrides, or the field policy) into the policy the simulation runs. */
export function resolvePolicy(
  settings: Settings,
  source: string,
  notes: string[] = [],
  warnings: string[] = [],
  resources: ScalingResources = noResources,
): PolicyReading {
  const rows: SettingRow[] = [];
  const get = (namespace: string, option: string): Setting => {
    const set = settings.get(key(namespace, option));
    const setting = set ?? { value: ebDefaults[namespace]![option] ?? '', from: 'EB default' };
    if (!rows.some((row) => row.namespace === namespace && row.option === option)) rows.push({ namespace, option, ...setting });
    return setting;
  };
  const isSet = (namespace: string, option: string) => settings.has(key(namespace, option));

  const measure = get(trigger, 'MeasureName');
  if (measure.value !== 'CPUUtilization') {
    throw new InputError(
      `${trigger} MeasureName is ${measure.value} (${measure.from}${measure.from === 'EB default' ? ': the files do not set it' : ''}). ` +
        "This simulator models the fleet's CPU only: set MeasureName: CPUUtilization and Unit: Percent.",
    );
  }
  const statistic = get(trigger, 'Statistic');
  if (statistic.value !== 'Average' && statistic.value !== 'Maximum' && statistic.value !== 'Minimum') {
    throw new InputError(`${trigger} Statistic is "${statistic.value}" (${statistic.from}): only Average, Maximum and Minimum make sense for CPUUtilization.`);
  }
  const unit = get(trigger, 'Unit');
  if (unit.value !== 'Percent') {
    warnings.push(
      `${trigger} Unit is ${unit.value} (${unit.from}), not Percent. CloudWatch does not convert units: an alarm on CPUUtilization ` +
        `with another unit gets no data and stays in INSUFFICIENT_DATA, so it never scales. Simulated as if Unit were Percent.`,
    );
  }

  const configuredPeriodMin = number(get, trigger, 'Period', wholeFrom(1), 'a whole number of minutes, 1 to 600');
  const monitoring = get(launch, 'MonitoringInterval');
  const monitoringMatch = /^(1|5) minutes?$/.exec(monitoring.value.trim());
  if (!monitoringMatch)
    throw new InputError(`${launch} MonitoringInterval is "${monitoring.value}" (${monitoring.from}): it must be "1 minute" or "5 minute".`);
  const metricResolutionS = Number(monitoringMatch[1]) * 60;
  let periodS = configuredPeriodMin * 60;
  if (periodS < metricResolutionS) {
    warnings.push(
      `${trigger} Period is ${configuredPeriodMin} min but instances report CPU every ${metricResolutionS / 60} min ` +
        `(${launch} MonitoringInterval "${monitoring.value}", ${monitoring.from}): the alarm cannot see finer than that. ` +
        `Simulated with a ${metricResolutionS / 60}-minute period; set MonitoringInterval: "1 minute" for the period you asked.`,
    );
    periodS = metricResolutionS;
  }

  let breachDurationS: number;
  const evaluationSet = isSet(trigger, 'EvaluationPeriods');
  const evaluationValue = number(get, trigger, 'EvaluationPeriods', wholeFrom(1), 'a whole number, 1 to 600');
  if (!isSet(trigger, 'BreachDuration') && evaluationSet) {
    breachDurationS = configuredPeriodMin * evaluationValue * 60;
    notes.push(`BreachDuration not set: taken as Period × EvaluationPeriods = ${breachDurationS / 60} min.`);
  } else {
    breachDurationS = number(get, trigger, 'BreachDuration', wholeFrom(1), 'a whole number of minutes, 1 to 600') * 60;
    if (configuredPeriodMin * evaluationValue * 60 !== breachDurationS) {
      warnings.push(
        `BreachDuration (${breachDurationS / 60} min) ≠ Period (${configuredPeriodMin} min) × EvaluationPeriods (${evaluationValue}${evaluationSet ? '' : ', EB default'}). ` +
          'EB documents BreachDuration = Period × EvaluationPeriods and "might modify one of the values"; simulated with BreachDuration.',
      );
    }
  }
  const evaluationPeriods = Math.max(1, Math.ceil(breachDurationS / periodS));

  const upperThreshold = number(get, trigger, 'UpperThreshold', (n) => n >= 0, 'a number');
  const lowerThreshold = number(get, trigger, 'LowerThreshold', (n) => n >= 0, 'a number');
  if (lowerThreshold >= upperThreshold) throw new InputError(`LowerThreshold (${lowerThreshold}) must be below UpperThreshold (${upperThreshold}).`);
  if (upperThreshold > 100) warnings.push(`UpperThreshold ${upperThreshold} is above 100% CPU: the fleet never scales up.`);
  if (lowerThreshold > 100)
    warnings.push(`LowerThreshold ${lowerThreshold} is above 100% CPU: the low alarm is always in ALARM and the fleet shrinks to MinSize.`);
  if (lowerThreshold === 0) notes.push("LowerThreshold 0: EB's low alarm never fires (CPU is never below 0%), so EB's trigger never scales in.");
  const upperIncrement = number(get, trigger, 'UpperBreachScaleIncrement', Number.isInteger, 'a whole number');
  const lowerIncrement = number(get, trigger, 'LowerBreachScaleIncrement', Number.isInteger, 'a whole number');
  if (upperIncrement <= 0) warnings.push(`UpperBreachScaleIncrement is ${upperIncrement}: high CPU does not add instances.`);
  if (lowerIncrement > 0) {
    warnings.push(
      `LowerBreachScaleIncrement is ${lowerIncrement}: EB adds that many instances on LOW CPU; removing takes a negative number (-${lowerIncrement}). Simulated as written.`,
    );
  }

  const minSize = number(get, asg, 'MinSize', wholeFrom(1), 'a whole number, 1 to 10000');
  const maxSize = number(get, asg, 'MaxSize', wholeFrom(1), 'a whole number, 1 to 10000');
  if (maxSize < minSize) throw new InputError(`MaxSize (${maxSize}) is below MinSize (${minSize}).`);
  if (!isSet(asg, 'MaxSize')) notes.push(`MaxSize not set: EB's default is ${maxSize}, which caps every scale-up.`);
  const cooldownS = number(get, asg, 'Cooldown', (n) => n >= 0 && n <= 10000, 'seconds, 0 to 10000');
  const healthCheckIntervalS = number(get, targetProcess, 'HealthCheckInterval', (n) => Number.isInteger(n) && n >= 5 && n <= 300, 'seconds, 5 to 300');
  const healthyThreshold = number(get, targetProcess, 'HealthyThresholdCount', (n) => Number.isInteger(n) && n >= 2 && n <= 10, 'a whole number, 2 to 10');
  const unhealthyThreshold = number(get, targetProcess, 'UnhealthyThresholdCount', (n) => Number.isInteger(n) && n >= 2 && n <= 10, 'a whole number, 2 to 10');
  const deregistrationDelayS = number(get, targetProcess, 'DeregistrationDelay', (n) => Number.isInteger(n) && n >= 0 && n <= 3600, 'seconds, 0 to 3600');

  // InstanceTypes (first entry) wins over the obsolete launchconfiguration InstanceType.
  const types = get(instances, 'InstanceTypes').value;
  const legacy = isSet(launch, 'InstanceType') ? get(launch, 'InstanceType').value : '';
  const instanceType = types.split(',')[0]!.trim() || legacy.trim() || null;

  return {
    policy: {
      measureName: measure.value,
      statistic: statistic.value,
      unit: unit.value,
      periodS,
      breachDurationS,
      evaluationPeriods,
      datapointsToAlarm: evaluationPeriods,
      metricResolutionS,
      upperThreshold,
      lowerThreshold,
      upperIncrement,
      lowerIncrement,
      minSize,
      maxSize,
      cooldownS,
      healthCheckIntervalS,
      healthyThreshold,
      unhealthyThreshold,
      deregistrationDelayS,
      instanceType,
    },
    resources,
    source,
    rows,
    notes,
    warnings,
  };
}

export interface ReadPolicyOptions {
  /** The .ebextensions directory. */
  dir: string;
  /** Use the newsroom's field policy even if the directory exists. */
  design: boolean;
  /** --option NAMESPACE:Option=value, applied after the files. */
  overrides: string[];
}

export function designPolicyReading(overrides: string[], why: string): PolicyReading {
  const settings: Settings = new Map(designSettings.map(([ns, option, value]) => [key(ns, option), { value, from: 'field policy' }]));
  const warnings: string[] = [];
  applyOverrides(settings, overrides, warnings);
  return resolvePolicy(settings, "the newsroom's field policy", [why, ...designAssumptions], warnings);
}

function applyOverrides(settings: Settings, overrides: string[], warnings: string[]): void {
  for (const raw of overrides) {
    const [namespace, option, value] = parseOverride(raw);
    if (!ebDefaults[namespace]) throw new InputError(`--option ${raw}: the simulator reads only ${Object.keys(ebDefaults).join(', ')}.`);
    record(settings, warnings, namespace, option, value, '--option');
  }
}

/** Reads the policy from disk: .ebextensions/*.config in alphabetical order, or the newsroom's field policy. */
export function readPolicy(options: ReadPolicyOptions): PolicyReading {
  const shown = path.relative(process.cwd(), options.dir);
  const where = shown && !shown.startsWith('..') ? shown : options.dir;
  if (options.design) return designPolicyReading(options.overrides, "Policy: the newsroom's field policy, as asked (--field-policy).");
  if (!fs.existsSync(options.dir)) {
    return designPolicyReading(options.overrides, `${where}/ does not exist: using the newsroom's field policy instead.`);
  }
  const names = fs
    .readdirSync(options.dir)
    .filter((name) => name.endsWith('.config'))
    .sort();
  if (names.length === 0) {
    return designPolicyReading(options.overrides, `${where} has no *.config file: using the newsroom's field policy instead.`);
  }
  const warnings: string[] = [];
  const files = names.map((name) => ({ name: path.join(path.basename(options.dir), name), text: fs.readFileSync(path.join(options.dir, name), 'utf8') }));
  const { settings, resources } = collect(files, warnings);
  applyOverrides(settings, options.overrides, warnings);
  return resolvePolicy(settings, `${path.basename(options.dir)}/ (${names.join(', ')})`, [], warnings, resources);
}
