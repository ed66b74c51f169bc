// npm run cloudwatch against moto: setup creates, a second setup changes nothing, teardown removes;
// the edge alarm in us-east-1 (with CloudFront's metrics), the origin's where the servers send,
// an SNS topic in each.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CloudWatchClient, DescribeAlarmsCommand, GetDashboardCommand, ListDashboardsCommand } from '@aws-sdk/client-cloudwatch';
import { ListSubscriptionsByTopicCommand, ListTopicsCommand, SNSClient } from '@aws-sdk/client-sns';
import { PutMetricAlarmCommand, type PutMetricAlarmInput } from '@aws-sdk/client-cloudwatch';
import { loadConfigFiles, optionSettings, resolveOptionSettings, resources } from '@kiosk/surface';
import { runAwsTool, startMoto, type Moto, type ToolRun } from '../../test/moto';
import { freePort } from '../../test/server';

let moto: Moto;
let edgeClient: CloudWatchClient;
const sns = new Map<string, SNSClient>();

before(async () => {
  moto = await startMoto();
  const credentials = { accessKeyId: moto.env.AWS_ACCESS_KEY_ID, secretAccessKey: moto.env.AWS_SECRET_ACCESS_KEY };
  edgeClient = new CloudWatchClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials });
  for (const region of ['eu-west-1', 'us-east-1']) sns.set(region, new SNSClient({ region, endpoint: moto.endpoint, credentials }));
});

after(async () => {
  edgeClient?.destroy();
  for (const client of sns.values()) client.destroy();
  await moto?.stop();
});

async function topicsNamed(region: string, name: string): Promise<string[]> {
  const { Topics = [] } = await sns.get(region)!.send(new ListTopicsCommand({}));
  return Topics.map((t) => t.TopicArn!).filter((arn) => arn.endsWith(`:${name}`));
}

/** The script as an operator runs it, with only the environment given here (none of this process's AWS settings). */
function cloudwatch(args: string[], env: Record<string, string>): Promise<ToolRun> {
  return runAwsTool('tools/cloudwatch/cloudwatch.ts', args, env);
}

async function state(prefix: string, dashboard: string) {
  const { DashboardBody } = await moto.client.send(new GetDashboardCommand({ DashboardName: dashboard }));
  const { MetricAlarms = [] } = await moto.client.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix }));
  return { body: DashboardBody, alarms: MetricAlarms };
}

test('setup creates the dashboard and alarms; run again it changes nothing; a new threshold updates one alarm; teardown removes them', async () => {
  const env = { ...moto.env, KIOSK_ENV: `setup-${process.pid}`, METRICS_NAMESPACE: 'Kiosk' };
  const dashboard = `Kiosk-setup-${process.pid}`;
  const prefix = `${dashboard}-`;

  const first = await cloudwatch(['setup'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /dashboard Kiosk-setup-\d+: created/);
  assert.match(first.stdout, /setup done: dashboard created; 5 alarms: 5 created, 0 updated, 0 unchanged, 0 removed/);
  assert.match(first.stderr, /no --distribution-id .*: the edge charts and the edge alarm are left out/);
  // No environment stack here: its scaling alarms are not there, and setup says so.
  assert.match(first.stderr, /the environment's scaling alarms are missing \(kiosk-scaling-setup-\d+-overload, kiosk-scaling-setup-\d+-scale-in\)/);
  const created = await state(prefix, dashboard);
  assert.equal(created.alarms.length, 5);
  const body = JSON.parse(created.body!) as { widgets: { properties: { title: string } }[] };
  assert.ok(body.widgets.length >= 9);
  assert.ok(body.widgets.some((w) => w.properties.title.startsWith('CPU and memory')));
  assert.deepEqual(
    created.alarms.map((a) => a.AlarmName).sort(),
    ['5xx', 'event-loop-delay', 'memory', 'request-rate', 'shell-share'].map((n) => prefix + n),
  );

  const second = await cloudwatch(['setup'], env);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /setup done: dashboard unchanged; 5 alarms: 0 created, 0 updated, 5 unchanged, 0 removed/);
  assert.deepEqual(await state(prefix, dashboard), created, 'the same dashboard body and the same alarms, timestamps included');

  const raised = await cloudwatch(['setup', '--max-request-rate', '2500'], env);
  assert.equal(raised.code, 0, raised.stderr);
  assert.match(raised.stdout, /alarm .*-request-rate \(eu-west-1\): updated/);
  assert.match(raised.stdout, /dashboard updated; 5 alarms: 0 created, 1 updated, 4 unchanged/);
  const updated = await state(prefix, dashboard);
  assert.equal(updated.alarms.find((a) => a.AlarmName === `${prefix}request-rate`)?.Threshold, 2500);

  const down = await cloudwatch(['teardown'], env);
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stdout, /teardown done: dashboard deleted; 5 alarms deleted; 1 topics deleted/);
  const { DashboardEntries = [] } = await moto.client.send(new ListDashboardsCommand({ DashboardNamePrefix: dashboard }));
  assert.equal(DashboardEntries.length, 0);
  assert.equal((await moto.client.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix }))).MetricAlarms?.length, 0);
  const again = await cloudwatch(['teardown'], env);
  assert.match(again.stdout, /teardown done: dashboard not there; 0 alarms deleted; 0 topics deleted/);
});

test('print calls nothing; missing region or credentials end in one clear line, not a stack trace', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`;
  const printed = await cloudwatch(['print', '--max-shell-percent', '40'], { AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_CLOUDWATCH: dead });
  assert.equal(printed.code, 0, printed.stderr);
  const json = JSON.parse(printed.stdout) as { dashboard: { name: string }; alarms: Record<string, { AlarmName: string; Threshold: number }[]> };
  assert.equal(json.dashboard.name, 'Kiosk-development');
  assert.equal(json.alarms['eu-west-1']!.find((a) => a.AlarmName.endsWith('shell-share'))?.Threshold, 40);

  const noRegion = await cloudwatch(['setup'], { AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'y' });
  assert.equal(noRegion.code, 2);
  assert.match(noRegion.stderr, /no AWS region: set AWS_REGION or pass --region/);

  const noCredentials = await cloudwatch(['setup'], { AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_CLOUDWATCH: moto.endpoint });
  assert.equal(noCredentials.code, 1);
  assert.match(noCredentials.stderr, /no AWS credentials: set AWS_ACCESS_KEY_ID/);

  const badFlag = await cloudwatch(['setup', '--max-shell-percent', 'lots'], { AWS_REGION: 'eu-west-1' });
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.stderr, /--max-shell-percent must be a number/);

  for (const run of [noRegion, noCredentials, badFlag]) assert.doesNotMatch(run.stderr, /^\s+at /m, 'no stack trace');

  const help = await cloudwatch(['--help'], {});
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: npm run cloudwatch -- setup \| teardown \| print/);
});

test('with a distribution: the edge alarm in us-east-1, a topic in each region that every alarm notifies, a warning while nobody is subscribed; idempotent; torn down', async () => {
  const env = { ...moto.env, KIOSK_ENV: `edge-${process.pid}`, METRICS_NAMESPACE: 'Kiosk', CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL' };
  const dashboard = `Kiosk-edge-${process.pid}`;
  const prefix = `${dashboard}-`;
  const topic = `${dashboard}-alarms`;
  const edgeAlarms = async () => (await edgeClient.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix }))).MetricAlarms ?? [];

  const first = await cloudwatch(['setup'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, new RegExp(`topic ${topic} \\(eu-west-1\\): created`));
  assert.match(first.stdout, new RegExp(`topic ${topic} \\(us-east-1\\): created`));
  assert.match(first.stdout, /setup done: dashboard created; 8 alarms: 8 created, 0 updated, 0 unchanged, 0 removed/);
  assert.match(first.stderr, /warning: nobody is subscribed to arn:aws:sns:eu-west-1:\d+:Kiosk-edge-\d+-alarms, so its alarms page no one/);
  assert.match(first.stderr, /warning: nobody is subscribed to arn:aws:sns:us-east-1:/);
  assert.match(first.stderr, /--subscribe-email/);

  const [euTopic] = await topicsNamed('eu-west-1', topic);
  const [usTopic] = await topicsNamed('us-east-1', topic);
  assert.ok(euTopic && usTopic);
  const origin = await state(prefix, dashboard);
  assert.equal(origin.alarms.length, 7, 'the origin alarms, the purge alarms among them, stay in the origin region');
  const purgeLag = origin.alarms.find((a) => a.AlarmName === `${prefix}edge-purge-lag`)!;
  assert.deepEqual(
    [
      purgeLag.Namespace,
      purgeLag.MetricName,
      purgeLag.Statistic,
      purgeLag.Threshold,
      purgeLag.DatapointsToAlarm,
      purgeLag.EvaluationPeriods,
      purgeLag.TreatMissingData,
    ],
    ['Kiosk', 'EdgePurgeLag', 'Maximum', 60, 3, 5, 'breaching'],
  );
  assert.deepEqual(purgeLag.Dimensions, [{ Name: 'Environment', Value: `edge-${process.pid}` }]);
  assert.equal(origin.alarms.find((a) => a.AlarmName === `${prefix}edge-purge-failures`)?.MetricName, 'EdgePurgeFailures');
  for (const alarm of origin.alarms) assert.deepEqual(alarm.AlarmActions, [euTopic]);
  const [edge, ...more] = await edgeAlarms();
  assert.equal(more.length, 0);
  assert.equal(edge!.AlarmName, `${prefix}edge-request-rate`);
  assert.deepEqual(edge!.AlarmActions, [usTopic]);
  assert.deepEqual(edge!.OKActions, [usTopic]);
  const requests = edge!.Metrics!.find((m) => m.MetricStat)!.MetricStat!;
  assert.equal(requests.Metric!.Namespace, 'AWS/CloudFront');
  assert.deepEqual(requests.Metric!.Dimensions, [
    { Name: 'DistributionId', Value: 'E2QWRUHAPOMQZL' },
    { Name: 'Region', Value: 'Global' },
  ]);
  const body = JSON.parse(origin.body!) as { widgets: { properties: { title: string; region: string } }[] };
  assert.equal(body.widgets.filter((w) => w.properties.region === 'us-east-1').length, 4);
  assert.ok(body.widgets.some((w) => w.properties.title.startsWith('Edge purge lag') && w.properties.region === 'eu-west-1'));

  const subscribed = await cloudwatch(['setup', '--subscribe-email', 'oncall@example.com'], env);
  assert.equal(subscribed.code, 0, subscribed.stderr);
  assert.match(subscribed.stdout, /\(eu-west-1\): oncall@example\.com subscribed/);
  assert.match(subscribed.stdout, /setup done: dashboard unchanged; 8 alarms: 0 created, 0 updated, 8 unchanged, 0 removed/);
  for (const [region, arn] of [
    ['eu-west-1', euTopic],
    ['us-east-1', usTopic],
  ] as const) {
    const { Subscriptions = [] } = await sns.get(region)!.send(new ListSubscriptionsByTopicCommand({ TopicArn: arn }));
    assert.deepEqual(
      Subscriptions.map((x) => [x.Protocol, x.Endpoint]),
      [['email', 'oncall@example.com']],
    );
    // moto confirms an e-mail subscription at once; real SNS waits for the link in the e-mail,
    // which setup reports as "waiting for confirmation" (not exercised here).
    assert.match(Subscriptions[0]!.SubscriptionArn!, /^arn:aws:sns:/);
  }

  const again = await cloudwatch(['setup', '--subscribe-email', 'oncall@example.com'], env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /oncall@example\.com already subscribed/);
  assert.match(again.stdout, new RegExp(`topic ${topic} \\(us-east-1\\): unchanged`));
  assert.match(again.stdout, /setup done: dashboard unchanged; 8 alarms: 0 created, 0 updated, 8 unchanged, 0 removed/);
  assert.doesNotMatch(again.stderr, /nobody is subscribed/);
  assert.deepEqual(await state(prefix, dashboard), origin, 'the origin side exactly as before');
  assert.deepEqual(await edgeAlarms(), [edge], 'the edge alarm exactly as before, timestamps included');
  assert.equal((await topicsNamed('us-east-1', topic)).length, 1, 'one topic, not a second');

  const raised = await cloudwatch(['setup', '--max-edge-request-rate', '8000'], env);
  assert.match(raised.stdout, /alarm .*-edge-request-rate \(us-east-1\): updated/);
  assert.equal((await edgeAlarms())[0]!.Threshold, 8000);

  const down = await cloudwatch(['teardown'], env);
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stdout, /teardown done: dashboard deleted; 8 alarms deleted; 2 topics deleted/);
  assert.deepEqual(await edgeAlarms(), []);
  assert.deepEqual(await topicsNamed('eu-west-1', topic), []);
  assert.deepEqual(await topicsNamed('us-east-1', topic), []);
});

/** The scaling alarms as the environment's stack creates them from .ebextensions, for `environment`. */
function stackAlarms(environment: string): PutMetricAlarmInput[] {
  const files = loadConfigFiles();
  const all = resolveOptionSettings(resources(files), optionSettings(files));
  const refs: Record<string, string> = { AWSEBEnvironmentName: environment, AWSEBAutoScalingGroup: `awseb-${environment}-AWSEBAutoScalingGroup` };
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!node || typeof node !== 'object') return node;
    const object = node as Record<string, unknown>;
    if (typeof object.Ref === 'string') return refs[object.Ref] ?? `arn:aws:autoscaling:eu-west-1:123456789012:scalingPolicy:${object.Ref}`;
    const join = object['Fn::Join'] as [string, unknown[]] | undefined;
    if (join) return (resolve(join[1]) as string[]).join(join[0]);
    return Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolve(v)]));
  };
  return Object.values(all)
    .filter((r) => r.Type === 'AWS::CloudWatch::Alarm')
    .map((r) => resolve(r.Properties) as PutMetricAlarmInput);
}

test("the environment's scaling alarms, its stack's: found by name and shown on the dashboard; setup and teardown leave them alone", async () => {
  const environment = `scaling-${process.pid}`;
  const env = { ...moto.env, KIOSK_ENV: environment, METRICS_NAMESPACE: 'Kiosk' };
  const created = stackAlarms(environment);
  assert.deepEqual(
    created.map((a) => a.AlarmName),
    [`kiosk-scaling-${environment}-overload`, `kiosk-scaling-${environment}-scale-in`],
  );
  for (const alarm of created) await moto.client.send(new PutMetricAlarmCommand(alarm));
  const stack = async () => (await moto.client.send(new DescribeAlarmsCommand({ AlarmNamePrefix: `kiosk-scaling-${environment}-` }))).MetricAlarms ?? [];
  const before = await stack();
  assert.equal(before.length, 2);

  const setup = await cloudwatch(['setup'], env);
  assert.equal(setup.code, 0, setup.stderr);
  assert.match(setup.stdout, new RegExp(`scaling alarm kiosk-scaling-${environment}-overload \\(eu-west-1\\): found, shown on the dashboard`));
  assert.doesNotMatch(setup.stderr, /scaling alarms are missing/);
  const { DashboardBody } = await moto.client.send(new GetDashboardCommand({ DashboardName: `Kiosk-${environment}` }));
  const body = JSON.parse(DashboardBody!) as { widgets: { type: string; properties: { title: string; alarms?: string[] } }[] };
  assert.deepEqual(
    body.widgets.find((w) => w.type === 'alarm')?.properties.alarms,
    before.map((a) => a.AlarmArn),
  );
  assert.ok(body.widgets.some((w) => w.properties.title.startsWith('Overload scaling: shell share every 10 s')));

  const down = await cloudwatch(['teardown'], env);
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stdout, /5 alarms deleted/);
  assert.deepEqual(
    (await stack()).map((a) => [a.AlarmName, a.AlarmArn]),
    before.map((a) => [a.AlarmName, a.AlarmArn]),
    "the stack's alarms are still there",
  );
});
