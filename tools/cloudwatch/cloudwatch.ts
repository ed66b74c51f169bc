import { isDeepStrictEqual, parseArgs } from 'node:util';
import {
  CloudWatchClient,
  DeleteAlarmsCommand,
  DeleteDashboardsCommand,
  DescribeAlarmsCommand,
  GetDashboardCommand,
  PutDashboardCommand,
  PutMetricAlarmCommand,
  type MetricAlarm,
  type PutMetricAlarmInput,
} from '@aws-sdk/client-cloudwatch';
import { ConfigError, loadConfig } from '../../server/config';
import { alarmPrefix, alarms, dashboardBody, dashboardName, monitoringDefaults, type MonitoringOptions } from './monitoring';

const usage = `Usage: npm run cloudwatch -- setup | teardown | print [options]

Creates or updates the Kiosk dashboard and alarms in CloudWatch, removes them, or prints them.
setup changes only what differs, so running it again changes nothing.

Commands:
  setup      create or update the dashboard and the alarms (and remove alarms of ours that are
             no longer defined)
  teardown   delete the dashboard and every alarm named with its prefix
  print      print the dashboard and alarms as JSON; calls nothing

Options:
  --region NAME                    default: $AWS_REGION (print: us-east-1 if unset)
  --namespace NAME                 default: $METRICS_NAMESPACE, else Kiosk
  --environment NAME               default: $KIOSK_ENV, else $NODE_ENV
  --max-request-rate N             req/s across the environment (default ${monitoringDefaults.maxRequestRatePerS})
  --max-shell-percent N            shell share of pages, % (default ${monitoringDefaults.maxShellPercent})
  --shell-minutes N                for this many minutes in a row (default ${monitoringDefaults.shellMinutes})
  --max-5xx-per-minute N           (default ${monitoringDefaults.max5xxPerMinute})
  --max-worker-rss-mib N           one worker's resident memory (default ${monitoringDefaults.maxWorkerRssMiB})
  --max-event-loop-delay-ms N      p90 of the event-loop delay (default ${monitoringDefaults.maxEventLoopDelayMs})
  --alarm-action ARN               an SNS topic to notify on alarm and on recovery; repeatable
  -h, --help                       show this help

AWS credentials come from the SDK's usual chain (environment, profile, instance role);
AWS_ENDPOINT_URL_CLOUDWATCH points it at another endpoint (the tests use moto).
Exit codes: 0 done, 1 AWS refused or could not be reached, 2 bad arguments or configuration.
`;

class UsageError extends Error {}

type Command = 'setup' | 'teardown' | 'print';

function number(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new UsageError(`--${flag} must be a number from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

type Parsed = { help: true } | { help: false; command: Command; options: MonitoringOptions };

function readCommand(args: string[]): Parsed {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      region: { type: 'string' },
      namespace: { type: 'string' },
      environment: { type: 'string' },
      'max-request-rate': { type: 'string' },
      'max-shell-percent': { type: 'string' },
      'shell-minutes': { type: 'string' },
      'max-5xx-per-minute': { type: 'string' },
      'max-worker-rss-mib': { type: 'string' },
      'max-event-loop-delay-ms': { type: 'string' },
      'alarm-action': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return { help: true };
  const [command, ...rest] = positionals;
  if (command !== 'setup' && command !== 'teardown' && command !== 'print') {
    throw new UsageError(command ? `unknown command "${command}"` : 'name a command: setup, teardown or print');
  }
  if (rest.length > 0) throw new UsageError(`unexpected "${rest.join(' ')}"`);

  // The same names and limits the servers use, from the same configuration.
  const env = { ...process.env };
  if (values.namespace !== undefined) env.METRICS_NAMESPACE = values.namespace;
  if (values.environment !== undefined) env.KIOSK_ENV = values.environment;
  const config = loadConfig(env);
  const region = values.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  if (!region && command !== 'print') {
    throw new ConfigError(`no AWS region: set AWS_REGION or pass --region (the region the servers send metrics to)`);
  }
  const alarmActions = values['alarm-action'] ?? [];
  for (const arn of alarmActions) if (!arn.startsWith('arn:')) throw new UsageError(`--alarm-action must be an ARN, got "${arn}"`);
  return {
    command,
    help: false,
    options: {
      region: region ?? 'us-east-1',
      namespace: config.metrics.namespace,
      environment: config.metrics.environment,
      maxRequestRatePerS: number('max-request-rate', values['max-request-rate'], monitoringDefaults.maxRequestRatePerS, 1, 10_000_000),
      maxShellPercent: number('max-shell-percent', values['max-shell-percent'], monitoringDefaults.maxShellPercent, 1, 100),
      shellMinutes: Math.round(number('shell-minutes', values['shell-minutes'], monitoringDefaults.shellMinutes, 1, 60)),
      max5xxPerMinute: number('max-5xx-per-minute', values['max-5xx-per-minute'], monitoringDefaults.max5xxPerMinute, 0, 10_000_000),
      maxWorkerRssMiB: number('max-worker-rss-mib', values['max-worker-rss-mib'], monitoringDefaults.maxWorkerRssMiB, 16, 1_048_576),
      maxEventLoopDelayMs: number('max-event-loop-delay-ms', values['max-event-loop-delay-ms'], monitoringDefaults.maxEventLoopDelayMs, 1, 600_000),
      ssrQueueLimit: config.ssrQueueLimit,
      alarmActions,
    },
  };
}

/** The fields of an alarm that setup decides; what DescribeAlarms adds (state, ARN, timestamps) is ignored. */
function alarmShape(alarm: PutMetricAlarmInput | MetricAlarm): unknown {
  const keep = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(keep);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value).sort(([a], [b]) => a.localeCompare(b))) {
        const kept = keep(v);
        if (kept !== undefined) out[k] = kept;
      }
      return out;
    }
    return value;
  };
  return keep({
    AlarmName: alarm.AlarmName,
    AlarmDescription: alarm.AlarmDescription,
    ActionsEnabled: alarm.ActionsEnabled,
    AlarmActions: alarm.AlarmActions,
    OKActions: alarm.OKActions,
    InsufficientDataActions: alarm.InsufficientDataActions,
    Namespace: alarm.Namespace,
    MetricName: alarm.MetricName,
    Dimensions: alarm.Dimensions,
    Statistic: alarm.Statistic,
    ExtendedStatistic: alarm.ExtendedStatistic,
    Period: alarm.Metrics?.length ? undefined : alarm.Period,
    Metrics: alarm.Metrics,
    EvaluationPeriods: alarm.EvaluationPeriods,
    DatapointsToAlarm: alarm.DatapointsToAlarm,
    Threshold: alarm.Threshold,
    ComparisonOperator: alarm.ComparisonOperator,
    TreatMissingData: alarm.TreatMissingData,
  });
}

async function existingAlarms(client: CloudWatchClient, prefix: string): Promise<MetricAlarm[]> {
  const found: MetricAlarm[] = [];
  let NextToken: string | undefined;
  do {
    const page = await client.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix, AlarmTypes: ['MetricAlarm'], NextToken }));
    found.push(...(page.MetricAlarms ?? []));
    NextToken = page.NextToken;
  } while (NextToken);
  return found;
}

async function currentDashboard(client: CloudWatchClient, name: string): Promise<unknown> {
  try {
    const { DashboardBody } = await client.send(new GetDashboardCommand({ DashboardName: name }));
    return DashboardBody ? JSON.parse(DashboardBody) : null;
  } catch (error) {
    if (/NotFound/i.test((error as Error).name)) return null;
    throw error;
  }
}

async function setup(client: CloudWatchClient, o: MonitoringOptions) {
  const name = dashboardName(o);
  const body = dashboardBody(o);
  const before = await currentDashboard(client, name);
  let dashboard = 'unchanged';
  if (!isDeepStrictEqual(before, body)) {
    await client.send(new PutDashboardCommand({ DashboardName: name, DashboardBody: JSON.stringify(body) }));
    dashboard = before === null ? 'created' : 'updated';
  }
  console.log(`dashboard ${name}: ${dashboard}`);

  const wanted = alarms(o);
  const existing = new Map((await existingAlarms(client, alarmPrefix(o))).map((a) => [a.AlarmName, a]));
  const tally = { created: 0, updated: 0, unchanged: 0, removed: 0 };
  for (const alarm of wanted) {
    const current = existing.get(alarm.AlarmName);
    existing.delete(alarm.AlarmName);
    let outcome: keyof typeof tally = 'unchanged';
    // PutMetricAlarm on an unchanged alarm would still reset its state and history: skip it.
    if (!current || !isDeepStrictEqual(alarmShape(current), alarmShape(alarm))) {
      await client.send(new PutMetricAlarmCommand(alarm));
      outcome = current ? 'updated' : 'created';
    }
    tally[outcome] += 1;
    console.log(`alarm ${alarm.AlarmName}: ${outcome}`);
  }
  const stale = [...existing.keys()].filter((n): n is string => Boolean(n));
  if (stale.length > 0) {
    await client.send(new DeleteAlarmsCommand({ AlarmNames: stale }));
    for (const n of stale) console.log(`alarm ${n}: removed (no longer defined)`);
    tally.removed = stale.length;
  }
  console.log(
    `setup done: dashboard ${dashboard}; ${wanted.length} alarms: ${tally.created} created, ${tally.updated} updated, ${tally.unchanged} unchanged, ${tally.removed} removed`,
  );
}

async function teardown(client: CloudWatchClient, o: MonitoringOptions) {
  const name = dashboardName(o);
  let dashboard = 'not there';
  if ((await currentDashboard(client, name)) !== null) {
    await client.send(new DeleteDashboardsCommand({ DashboardNames: [name] }));
    dashboard = 'deleted';
  }
  console.log(`dashboard ${name}: ${dashboard}`);
  const names = (await existingAlarms(client, alarmPrefix(o))).map((a) => a.AlarmName).filter((n): n is string => Boolean(n));
  // DeleteAlarms takes at most 100 names.
  for (let i = 0; i < names.length; i += 100) await client.send(new DeleteAlarmsCommand({ AlarmNames: names.slice(i, i + 100) }));
  for (const n of names) console.log(`alarm ${n}: deleted`);
  console.log(`teardown done: dashboard ${dashboard}; ${names.length} alarms deleted`);
}

/** A one-line reason for an AWS failure, with what to do about the common ones. */
function explain(error: unknown): string {
  const e = error as { name?: string; message?: string };
  const name = e?.name ?? 'Error';
  if (name === 'CredentialsProviderError' || /credential/i.test(e?.message ?? '')) {
    return `no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run where an instance role applies (${e?.message})`;
  }
  if (/AccessDenied|UnauthorizedOperation|NotAuthorized/i.test(name)) {
    return `${name}: ${e?.message} (docs/operations.md lists the IAM permissions this script needs)`;
  }
  return `${name}: ${e?.message ?? String(error)}`;
}

async function main(args: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = readCommand(args);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`cloudwatch: ${message}${error instanceof ConfigError ? '' : `\n\n${usage}`}`);
    return 2;
  }
  if (parsed.help) {
    console.log(usage);
    return 0;
  }
  const { command, options } = parsed;
  if (command === 'print') {
    if (!process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION && !args.some((a) => a.startsWith('--region'))) {
      console.error('cloudwatch: no region given; the dashboard below names us-east-1');
    }
    const dashboard = { name: dashboardName(options), body: dashboardBody(options) };
    console.log(JSON.stringify({ dashboard, alarms: alarms(options) }, null, 2));
    return 0;
  }

  const endpoint = process.env.AWS_ENDPOINT_URL_CLOUDWATCH || process.env.AWS_ENDPOINT_URL;
  console.log(
    `cloudwatch ${command}: namespace ${options.namespace}, environment ${options.environment}, region ${options.region}${endpoint ? `, endpoint ${endpoint}` : ''}`,
  );
  const client = new CloudWatchClient({ region: options.region, maxAttempts: 3 });
  try {
    // Fail on missing credentials with a clear line before anything is attempted.
    await client.config.credentials();
    if (command === 'setup') await setup(client, options);
    else await teardown(client, options);
    return 0;
  } catch (error) {
    console.error(`cloudwatch ${command} failed: ${explain(error)}`);
    return 1;
  } finally {
    client.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`cloudwatch: ${explain(error)}`);
    process.exit(1);
  },
);
