// What setup and teardown do in AWS: the SNS topics, the dashboard and the alarms in each
// region that holds some, changing only what differs (an alarm put again would lose its state).
import { isDeepStrictEqual } from 'node:util';
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
import { SNSClient } from '@aws-sdk/client-sns';
import { alarmPrefix, alarmsByRegion, cloudFront, dashboardBody, dashboardName, topicName, type MonitoringOptions } from './monitoring';
import { deleteTopic, ensureTopic, isConfirmed, subscribeEmail, subscriptions } from './topics';

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

/** One client per region for each service, made on first use and destroyed at the end. */
export class Clients {
  private cloudWatch = new Map<string, CloudWatchClient>();
  private sns = new Map<string, SNSClient>();
  cw(region: string): CloudWatchClient {
    if (!this.cloudWatch.has(region)) this.cloudWatch.set(region, new CloudWatchClient({ region, maxAttempts: 3 }));
    return this.cloudWatch.get(region)!;
  }
  topics(region: string): SNSClient {
    if (!this.sns.has(region)) this.sns.set(region, new SNSClient({ region, maxAttempts: 3 }));
    return this.sns.get(region)!;
  }
  destroy(): void {
    for (const client of [...this.cloudWatch.values(), ...this.sns.values()]) client.destroy();
  }
}

/** The regions that hold alarms (and so a topic): the origin's, and us-east-1 for the edge alarm. */
function alarmRegions(o: MonitoringOptions): string[] {
  return [...new Set([o.region, ...(o.distributionId ? [cloudFront.region] : [])])];
}

/** The topic in each region, created if missing; the subscribers counted, and a warning when nobody would be paged. */
async function setupTopics(clients: Clients, o: MonitoringOptions, email: string | undefined): Promise<Map<string, string>> {
  const name = topicName(o);
  const arns = new Map<string, string>();
  for (const region of alarmRegions(o)) {
    const sns = clients.topics(region);
    const { arn, created } = await ensureTopic(sns, name);
    arns.set(region, arn);
    console.log(`topic ${name} (${region}): ${created ? 'created' : 'unchanged'}`);
    if (email) console.log(`topic ${name} (${region}): ${email} ${await subscribeEmail(sns, arn, email)}`);
    const subs = await subscriptions(sns, arn);
    const confirmed = subs.filter(isConfirmed).length;
    const waiting = subs.length - confirmed;
    console.log(`topic ${name} (${region}): ${confirmed} subscriber(s)${waiting > 0 ? `, ${waiting} waiting for confirmation` : ''}`);
    if (confirmed === 0) {
      console.error(
        `cloudwatch: warning: nobody is subscribed to ${arn}, so its alarms page no one${waiting > 0 ? ` until the confirmation e-mail is followed` : ''}. ` +
          `Subscribe: npm run cloudwatch -- setup --subscribe-email you@example.com (then confirm), or subscribe a pager to the topic.`,
      );
    }
  }
  return arns;
}

async function setupAlarms(client: CloudWatchClient, prefix: string, wanted: PutMetricAlarmInput[], region: string) {
  const existing = new Map((await existingAlarms(client, prefix)).map((a) => [a.AlarmName, a]));
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
    console.log(`alarm ${alarm.AlarmName} (${region}): ${outcome}`);
  }
  const stale = [...existing.keys()].filter((n): n is string => Boolean(n));
  if (stale.length > 0) {
    await client.send(new DeleteAlarmsCommand({ AlarmNames: stale }));
    for (const n of stale) console.log(`alarm ${n} (${region}): removed (no longer defined)`);
    tally.removed = stale.length;
  }
  return tally;
}

export async function setup(clients: Clients, given: MonitoringOptions, email: string | undefined) {
  if (!given.distributionId) {
    console.error(
      'cloudwatch: warning: no --distribution-id (or CLOUDFRONT_DISTRIBUTION_ID): the edge charts and the edge alarm are left out, and so are the purge charts and alarms',
    );
  }
  const topics = await setupTopics(clients, given, email);
  const inRegion = (region: string) => (arn: string) => arn.split(':')[3] === region;
  const o: MonitoringOptions = {
    ...given,
    alarmActions: [topics.get(given.region)!, ...given.alarmActions.filter(inRegion(given.region))],
    edgeAlarmActions: topics.has(cloudFront.region) ? [topics.get(cloudFront.region)!, ...given.edgeAlarmActions] : [],
  };

  const client = clients.cw(o.region);
  o.scalingAlarmArns = await scalingAlarmArns(client, o);
  const name = dashboardName(o);
  const body = dashboardBody(o);
  const before = await currentDashboard(client, name);
  let dashboard = 'unchanged';
  if (!isDeepStrictEqual(before, body)) {
    await client.send(new PutDashboardCommand({ DashboardName: name, DashboardBody: JSON.stringify(body) }));
    dashboard = before === null ? 'created' : 'updated';
  }
  console.log(`dashboard ${name}: ${dashboard}`);

  const byRegion = alarmsByRegion(o);
  // The edge alarm's region is swept even without a distribution, so a removed edge alarm goes.
  if (!byRegion.has(cloudFront.region)) byRegion.set(cloudFront.region, []);
  const total = { created: 0, updated: 0, unchanged: 0, removed: 0 };
  let count = 0;
  for (const [region, wanted] of byRegion) {
    const tally = await setupAlarms(clients.cw(region), alarmPrefix(o), wanted, region);
    for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += tally[key];
    count += wanted.length;
  }
  console.log(
    `setup done: dashboard ${dashboard}; ${count} alarms: ${total.created} created, ${total.updated} updated, ${total.unchanged} unchanged, ${total.removed} removed`,
  );
}

/** The scaling alarms of the environment's stack, found by name; a warning for those not there. */
async function scalingAlarmArns(client: CloudWatchClient, o: MonitoringOptions): Promise<string[]> {
  const names = o.scaling?.alarmNames ?? [];
  if (names.length === 0) return [];
  const { MetricAlarms = [] } = await client.send(new DescribeAlarmsCommand({ AlarmNames: names, AlarmTypes: ['MetricAlarm'] }));
  const found = new Map(MetricAlarms.map((a) => [a.AlarmName, a.AlarmArn]));
  for (const n of names) console.log(`scaling alarm ${n} (${o.region}): ${found.has(n) ? 'found, shown on the dashboard' : 'not there'}`);
  if (found.size < names.length) {
    console.error(
      `cloudwatch: warning: the environment's scaling alarms are missing (${names.filter((n) => !found.has(n)).join(', ')}): ` +
        'deploy the bundle with .ebextensions/09-overload-scaling.config, and check that KIOSK_ENV is the Elastic Beanstalk environment name.',
    );
  }
  return names.filter((n) => found.has(n)).map((n) => found.get(n)!);
}

export async function teardown(clients: Clients, o: MonitoringOptions) {
  const name = dashboardName(o);
  const client = clients.cw(o.region);
  let dashboard = 'not there';
  if ((await currentDashboard(client, name)) !== null) {
    await client.send(new DeleteDashboardsCommand({ DashboardNames: [name] }));
    dashboard = 'deleted';
  }
  console.log(`dashboard ${name}: ${dashboard}`);
  let deleted = 0;
  let topics = 0;
  // us-east-1 always: the edge alarm and its topic are there whether or not a distribution is named now.
  for (const region of new Set([o.region, cloudFront.region])) {
    const cw = clients.cw(region);
    const names = (await existingAlarms(cw, alarmPrefix(o))).map((a) => a.AlarmName).filter((n): n is string => Boolean(n));
    // DeleteAlarms takes at most 100 names.
    for (let i = 0; i < names.length; i += 100) await cw.send(new DeleteAlarmsCommand({ AlarmNames: names.slice(i, i + 100) }));
    for (const n of names) console.log(`alarm ${n} (${region}): deleted`);
    deleted += names.length;
    if (await deleteTopic(clients.topics(region), topicName(o))) {
      console.log(`topic ${topicName(o)} (${region}): deleted`);
      topics += 1;
    }
  }
  console.log(`teardown done: dashboard ${dashboard}; ${deleted} alarms deleted; ${topics} topics deleted`);
}
