// Test harness: moto's server, a real implementation of the CloudWatch and SNS APIs (and the
// other AWS services it mocks, all on one port), on a free port.
// scripts/setup-system.sh installs it and links it into the checkout as .venv-moto; the tests
// fail, not skip, without it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CloudWatchClient,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  ListMetricsCommand,
  type Dimension,
  type Metric,
  type Statistic,
} from '@aws-sdk/client-cloudwatch';
import { freePort } from './server';
import { CloudFrontClient, CreateDistributionCommand } from '@aws-sdk/client-cloudfront';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const motoServerPath = path.join(root, '.venv-moto', 'bin', 'moto_server');

/** What a process needs in its environment to talk to this moto as if it were AWS. */
export interface MotoEnv {
  AWS_REGION: string;
  AWS_ENDPOINT_URL_CLOUDWATCH: string;
  AWS_ENDPOINT_URL_SNS: string;
  AWS_ENDPOINT_URL_CLOUDFORMATION: string;
  AWS_ACCESS_KEY_ID: string;
  AWS_SECRET_ACCESS_KEY: string;
  AWS_EC2_METADATA_DISABLED: string;
}

export interface Moto {
  endpoint: string;
  env: MotoEnv;
  client: CloudWatchClient;
  output(): string;
  stop(): Promise<void>;
}

export async function startMoto(): Promise<Moto> {
  if (!fs.existsSync(motoServerPath)) {
    throw new Error(
      `moto is not installed (${motoServerPath} is missing): run "bash scripts/setup-system.sh", which installs moto[server] and links it as .venv-moto`,
    );
  }
  const port = await freePort();
  const child = spawn(motoServerPath, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`moto_server exited during start-up:\n${output}`);
    try {
      if ((await fetch(`${endpoint}/moto-api/`)).status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`moto_server did not answer within 30 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const env: MotoEnv = {
    AWS_REGION: 'eu-west-1',
    AWS_ENDPOINT_URL_CLOUDWATCH: endpoint,
    AWS_ENDPOINT_URL_SNS: endpoint,
    AWS_ENDPOINT_URL_CLOUDFORMATION: endpoint,
    AWS_ACCESS_KEY_ID: 'testing',
    AWS_SECRET_ACCESS_KEY: 'testing',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const client = new CloudWatchClient({
    region: env.AWS_REGION,
    endpoint,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });
  return {
    endpoint,
    env,
    client,
    output: () => output,
    async stop() {
      client.destroy();
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * One statistic over everything sent in the last hours. GetMetricData, because it matches
 * dimensions exactly as CloudWatch does; moto's GetMetricStatistics also counts any datum
 * whose dimensions include the ones asked for, so [Environment] would count every datum twice.
 */
export async function statistic(
  client: CloudWatchClient,
  namespace: string,
  metricName: string,
  dimensions: Dimension[],
  stat: Statistic,
): Promise<number | undefined> {
  const { MetricDataResults = [] } = await client.send(
    new GetMetricDataCommand({
      StartTime: new Date(Date.now() - 2 * 3_600_000),
      EndTime: new Date(Date.now() + 600_000),
      MetricDataQueries: [
        { Id: 'q', MetricStat: { Metric: { Namespace: namespace, MetricName: metricName, Dimensions: dimensions }, Period: 3_600, Stat: stat } },
      ],
    }),
  );
  const values = MetricDataResults[0]?.Values ?? [];
  if (values.length === 0) return undefined;
  // The window spans more than one period: combine them.
  if (stat === 'Maximum') return Math.max(...values);
  if (stat === 'Minimum') return Math.min(...values);
  return values.reduce((a, b) => a + b, 0);
}

/** GetMetricStatistics, for the per-instance series only (see statistic()). */
export async function instanceStatistic(
  client: CloudWatchClient,
  namespace: string,
  metricName: string,
  dimensions: Dimension[],
  stat: Statistic,
): Promise<number | undefined> {
  const { Datapoints = [] } = await client.send(
    new GetMetricStatisticsCommand({
      Namespace: namespace,
      MetricName: metricName,
      Dimensions: dimensions,
      StartTime: new Date(Date.now() - 2 * 3_600_000),
      EndTime: new Date(Date.now() + 600_000),
      Period: 3 * 3_600,
      Statistics: [stat],
    }),
  );
  const values = Datapoints.map((d) => d[stat]!);
  if (values.length === 0) return undefined;
  if (stat === 'Maximum') return Math.max(...values);
  if (stat === 'Minimum') return Math.min(...values);
  return values.reduce((a, b) => a + b, 0);
}

/** Metric names and dimension sets seen in a namespace (moto lists one entry per datum: deduplicated here). */
export async function listedMetrics(client: CloudWatchClient, namespace: string): Promise<Map<string, Set<string>>> {
  const seen = new Map<string, Set<string>>();
  let NextToken: string | undefined;
  do {
    const page = await client.send(new ListMetricsCommand({ Namespace: namespace, NextToken }));
    for (const m of page.Metrics ?? ([] as Metric[])) {
      const dims = (m.Dimensions ?? [])
        .map((d) => `${d.Name}=${d.Value}`)
        .sort()
        .join(',');
      if (!seen.has(m.MetricName!)) seen.set(m.MetricName!, new Set());
      seen.get(m.MetricName!)!.add(dims);
    }
    NextToken = page.NextToken;
  } while (NextToken);
  return seen;
}

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * One of the repository's AWS tools (a .ts path from the root) as an operator runs it, with only
 * the environment given here: no shared config or credentials files, no instance metadata, none
 * of this process's AWS settings.
 */
export function runAwsTool(script: string, args: string[], env: Record<string, string>): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
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

/** A CloudFront client on the moto server, and a distribution of its own to purge (moto keeps its invalidations). */
export async function motoDistribution(moto: Moto, name: string): Promise<{ client: CloudFrontClient; distributionId: string }> {
  const client = new CloudFrontClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  const created = await client.send(
    new CreateDistributionCommand({
      DistributionConfig: {
        CallerReference: `kiosk-${name}-${process.pid}`,
        Comment: `Kiosk ${name}`,
        Enabled: true,
        Origins: {
          Quantity: 1,
          Items: [{ Id: 'origin', DomainName: 'origin.example', CustomOriginConfig: { HTTPPort: 80, HTTPSPort: 443, OriginProtocolPolicy: 'http-only' } }],
        },
        DefaultCacheBehavior: { TargetOriginId: 'origin', ViewerProtocolPolicy: 'redirect-to-https', CachePolicyId: '658327ea-f89d-4fab-a63d-7e88639e58f6' },
      },
    }),
  );
  return { client, distributionId: created.Distribution!.Id! };
}
