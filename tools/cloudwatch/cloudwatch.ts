import { ConfigError, loadConfig, numberFlag, parseCommandLine, UsageError } from '@kiosk/surface';
import { Clients, setup, teardown } from './apply';
import { alarmsByRegion, cloudFront, dashboardBody, dashboardName, monitoringDefaults, topicName, type MonitoringOptions } from './monitoring';
import { scalingView } from './scaling';

const usage = `Usage: npm run cloudwatch -- setup | teardown | print [options]

Creates or updates the Kiosk dashboard, its alarms and the SNS topic they notify, removes them,
or prints them. setup changes only what differs, so running it again changes nothing. The
scaling alarms are the environment stack's (.ebextensions/09-overload-scaling.config): the
dashboard charts what they watch and, once setup finds them, shows their state; this script
never changes them.

Commands:
  setup      create or update the dashboard, the alarms and their SNS topic (and remove alarms of
             ours that are no longer defined); warns when nobody is subscribed to the topic
  teardown   delete the dashboard, every alarm named with its prefix (in the origin's region and
             in us-east-1) and the topics
  print      print the dashboard and alarms as JSON; calls nothing

Options:
  --region NAME                    default: $AWS_REGION (print: us-east-1 if unset)
  --namespace NAME                 default: $METRICS_NAMESPACE, else Kiosk
  --environment NAME               default: $KIOSK_ENV, else $NODE_ENV
  --distribution-id ID             the CloudFront distribution (default: $CLOUDFRONT_DISTRIBUTION_ID); its
                                   charts, the edge alarm and the purge charts and alarms are left
                                   out without one
  --max-edge-request-rate N        viewer req/s at CloudFront that pages (default ${monitoringDefaults.maxEdgeRequestRatePerS})
  --edge-minutes N                 for this many minutes in a row (default ${monitoringDefaults.edgeMinutes})
  --max-purge-lag-s N              with a distribution: the edge purge lag (the oldest change not yet
                                   sent to CloudFront, s) that pages in ${monitoringDefaults.purgeLagMinutes} of ${monitoringDefaults.purgeLagOfMinutes} minutes (default
                                   ${monitoringDefaults.maxPurgeLagS}); a failed purge call in 3 of 5 minutes pages too
  --max-request-rate N             origin req/s across the environment, the early warning
                                   (default ${monitoringDefaults.maxRequestRatePerS})
  --max-shell-percent N            shell share of pages, % (default ${monitoringDefaults.maxShellPercent})
  --shell-minutes N                for this many minutes in a row (default ${monitoringDefaults.shellMinutes})
  --max-5xx-per-minute N           (default ${monitoringDefaults.max5xxPerMinute})
  --max-worker-rss-mib N           one worker's resident memory (default ${monitoringDefaults.maxWorkerRssMiB})
  --max-event-loop-delay-ms N      p90 of the event-loop delay (default ${monitoringDefaults.maxEventLoopDelayMs})
  --subscribe-email ADDRESS        subscribe this address to the alarms' topic(s) (setup; AWS mails a
                                   confirmation link, and nothing is delivered until it is followed)
  --alarm-action ARN               another action on alarm and on recovery, besides the topic; repeatable
                                   (an ARN in us-east-1 also goes on the edge alarm)
  -h, --help                       show this help

AWS credentials come from the SDK's usual chain (environment, profile, instance role);
AWS_ENDPOINT_URL_CLOUDWATCH and AWS_ENDPOINT_URL_SNS point it at other endpoints (the tests use moto).
Exit codes: 0 done, 1 AWS refused or could not be reached, 2 bad arguments or configuration.
`;

type Command = 'setup' | 'teardown' | 'print';

function number(flag: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  return numberFlag(`--${flag}`, raw, (n) => n >= min && n <= max, `a number from ${min} to ${max}`) ?? fallback;
}

type Parsed = { help: true } | { help: false; command: Command; options: MonitoringOptions; subscribeEmail?: string };

function readCommand(args: string[]): Parsed {
  const parsed = parseCommandLine(args, {
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
      'distribution-id': { type: 'string' },
      'max-edge-request-rate': { type: 'string' },
      'edge-minutes': { type: 'string' },
      'max-purge-lag-s': { type: 'string' },
      'subscribe-email': { type: 'string' },
      'alarm-action': { type: 'string', multiple: true },
    },
  });
  if (parsed === null) return { help: true };
  const { values, positionals } = parsed;
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
  const distributionId = values['distribution-id'] ?? (process.env.CLOUDFRONT_DISTRIBUTION_ID || undefined);
  if (distributionId !== undefined && !/^[A-Z0-9]{6,32}$/.test(distributionId)) {
    throw new UsageError(`--distribution-id must be a CloudFront distribution id (capital letters and digits, like E2QWRUHAPOMQZL), got "${distributionId}"`);
  }
  const email = values['subscribe-email'];
  if (email !== undefined && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new UsageError(`--subscribe-email must be an e-mail address, got "${email}"`);
  if (email !== undefined && command !== 'setup') throw new UsageError('--subscribe-email goes with setup');
  return {
    command,
    help: false,
    subscribeEmail: email,
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
      // The topic's ARN is added by setup once the topic exists.
      alarmActions,
      distributionId,
      maxEdgeRequestRatePerS: number('max-edge-request-rate', values['max-edge-request-rate'], monitoringDefaults.maxEdgeRequestRatePerS, 1, 100_000_000),
      edgeMinutes: Math.round(number('edge-minutes', values['edge-minutes'], monitoringDefaults.edgeMinutes, 1, 5)),
      edgeAlarmActions: alarmActions.filter((arn) => arn.split(':')[3] === cloudFront.region),
      maxPurgeLagS: number('max-purge-lag-s', values['max-purge-lag-s'], monitoringDefaults.maxPurgeLagS, 1, 86_400),
      purgeLagMinutes: monitoringDefaults.purgeLagMinutes,
      purgeLagOfMinutes: monitoringDefaults.purgeLagOfMinutes,
      // The scaling alarms the environment's stack creates, named for this environment.
      scaling: scalingView(config.metrics.environment),
    },
  };
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
  const { command, options, subscribeEmail: email } = parsed;
  if (command === 'print') {
    if (!process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION && !args.some((a) => a.startsWith('--region'))) {
      console.error('cloudwatch: no region given; the dashboard below names us-east-1');
    }
    const dashboard = { name: dashboardName(options), body: dashboardBody(options) };
    // Without the topics (print calls nothing), the alarms show only the --alarm-action ARNs.
    console.log(JSON.stringify({ dashboard, topic: topicName(options), alarms: Object.fromEntries(alarmsByRegion(options)) }, null, 2));
    return 0;
  }

  const endpoint = process.env.AWS_ENDPOINT_URL_CLOUDWATCH || process.env.AWS_ENDPOINT_URL;
  console.log(
    `cloudwatch ${command}: namespace ${options.namespace}, environment ${options.environment}, region ${options.region}` +
      `${options.distributionId ? `, distribution ${options.distributionId} (edge metrics in ${cloudFront.region})` : ''}${endpoint ? `, endpoint ${endpoint}` : ''}`,
  );
  const clients = new Clients();
  try {
    // Fail on missing credentials with a clear line before anything is attempted.
    await clients.cw(options.region).config.credentials();
    if (command === 'setup') await setup(clients, options, email);
    else await teardown(clients, options);
    return 0;
  } catch (error) {
    console.error(`cloudwatch ${command} failed: ${explain(error)}`);
    return 1;
  } finally {
    clients.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`cloudwatch: ${explain(error)}`);
    process.exit(1);
  },
);
