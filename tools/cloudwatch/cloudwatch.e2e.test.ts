// npm run cloudwatch against moto: setup creates, a second setup changes nothing, teardown removes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DescribeAlarmsCommand, GetDashboardCommand, ListDashboardsCommand } from '@aws-sdk/client-cloudwatch';
import { startMoto, type Moto } from '../../test/moto';
import { freePort } from '../../test/server';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let moto: Moto;

before(async () => {
  moto = await startMoto();
});

after(async () => {
  await moto?.stop();
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The script as an operator runs it, with only the environment given here (none of this process's AWS settings). */
function cloudwatch(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'tools/cloudwatch/cloudwatch.ts', ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        // No shared config or credentials files, no instance metadata: nothing but what the test gives.
        AWS_CONFIG_FILE: '/nonexistent',
        AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
        AWS_EC2_METADATA_DISABLED: 'true',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
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
  assert.match(raised.stdout, /alarm .*-request-rate: updated/);
  assert.match(raised.stdout, /dashboard updated; 5 alarms: 0 created, 1 updated, 4 unchanged/);
  const updated = await state(prefix, dashboard);
  assert.equal(updated.alarms.find((a) => a.AlarmName === `${prefix}request-rate`)?.Threshold, 2500);

  const down = await cloudwatch(['teardown'], env);
  assert.equal(down.code, 0, down.stderr);
  assert.match(down.stdout, /teardown done: dashboard deleted; 5 alarms deleted/);
  const { DashboardEntries = [] } = await moto.client.send(new ListDashboardsCommand({ DashboardNamePrefix: dashboard }));
  assert.equal(DashboardEntries.length, 0);
  assert.equal((await moto.client.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix }))).MetricAlarms?.length, 0);
  const again = await cloudwatch(['teardown'], env);
  assert.match(again.stdout, /teardown done: dashboard not there; 0 alarms deleted/);
});

test('print calls nothing; missing region or credentials end in one clear line, not a stack trace', async () => {
  const dead = `http://127.0.0.1:${await freePort()}`;
  const printed = await cloudwatch(['print', '--max-shell-percent', '40'], { AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_CLOUDWATCH: dead });
  assert.equal(printed.code, 0, printed.stderr);
  const json = JSON.parse(printed.stdout) as { dashboard: { name: string }; alarms: { AlarmName: string; Threshold: number }[] };
  assert.equal(json.dashboard.name, 'Kiosk-development');
  assert.equal(json.alarms.find((a) => a.AlarmName.endsWith('shell-share'))?.Threshold, 40);

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
