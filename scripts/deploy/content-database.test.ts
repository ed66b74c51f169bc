// The fleet's PostgreSQL as deployed: the CloudFormation stack of its own (Multi-AZ, encrypted,
// backed up, reachable only from the Kiosk instances), its connection limit against every
// pool the fleet can open, and the one migration command that package.json, the deployment
// and the tests share.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadConfig } from '../../server/config';
import { databaseUrlVariable, migrationsDir, migrationsTable } from '../db/migrate';
import { bundleEntries } from './bundle';
import { environmentProperties, loadConfigFiles, optionSettings, root, settingValue } from './ebextensions';

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}
const templatePath = path.join(root, 'cloudformation/content-database.yaml');
const template = parse(fs.readFileSync(templatePath, 'utf8')) as { Resources: Record<string, Resource>; Outputs: Record<string, unknown> };
const byType = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
const files = loadConfigFiles();
const settings = optionSettings(files);

test('the database: RDS PostgreSQL, Multi-AZ, encrypted, backed up, private, kept on deletion', () => {
  const [[, db] = []] = byType('AWS::RDS::DBInstance');
  assert.ok(db);
  const p = db.Properties;
  assert.equal(p.Engine, 'postgres');
  assert.equal(p.MultiAZ, true);
  assert.equal(p.StorageEncrypted, true);
  assert.ok((p.BackupRetentionPeriod as number) >= 7, 'a week of automated backups at least');
  assert.equal(p.PubliclyAccessible, false);
  assert.equal(p.DeletionProtection, true);
  assert.equal(db.DeletionPolicy, 'Snapshot');
  assert.equal(db.UpdateReplacePolicy, 'Snapshot');
  assert.match(JSON.stringify(p.MasterUserPassword), /resolve:secretsmanager/, 'the password comes from Secrets Manager, not the template');
  const family = (template.Resources.ParameterGroup?.Properties.Family as string) ?? '';
  assert.equal(family, `postgres${String(p.EngineVersion).split('.')[0]}`, 'the parameter group fits the engine version');
});

test('only the Kiosk client security group reaches PostgreSQL, and on 5432 only', () => {
  const groups = byType('AWS::EC2::SecurityGroup');
  const rules = groups.flatMap(([, g]) => (g.Properties.SecurityGroupIngress as Record<string, unknown>[] | undefined) ?? []);
  assert.equal(rules.length, 1);
  assert.deepEqual(rules[0], {
    IpProtocol: 'tcp',
    FromPort: 5432,
    ToPort: 5432,
    SourceSecurityGroupId: { Ref: 'ClientSecurityGroup' },
    Description: 'PostgreSQL from the Kiosk instances',
  });
  assert.ok(!JSON.stringify(template).includes('CidrIp'), 'no address range is let in');
  assert.ok(template.Outputs.ClientSecurityGroupId && template.Outputs.ConnectionStringSecretArn);
});

test('every pool the fleet can open fits max_connections: (MaxSize + the additional batch) x workers x (pool + listener)', () => {
  const env = environmentProperties(settings);
  const workers = Number(env.WEB_CONCURRENCY);
  const maxSize = settingValue(settings, 'aws:autoscaling:asg', 'MaxSize') as number;
  // RollingWithAdditionalBatch adds one batch of new instances while deploying.
  const batchPercent = settingValue(settings, 'aws:elasticbeanstalk:command', 'BatchSize') as number;
  const instances = maxSize + Math.ceil((maxSize * batchPercent) / 100);
  const { content } = loadConfig({ CONTENT_DATABASE_URL: 'postgres://kiosk@db.example/kiosk', ...env });
  assert.equal(content.store, 'postgresql');
  const pool = content.store === 'postgresql' ? content.poolSize : 0;
  const perWorker = pool + 1;
  // PostgreSQL's superuser_reserved_connections (3), RDS's own (2), the migration, a few operators.
  const reserved = 3 + 2 + 1 + 5;
  const maxConnections = Number((template.Resources.ParameterGroup?.Properties.Parameters as Record<string, string>).max_connections);
  const needed = instances * workers * perWorker + reserved;
  assert.ok(
    needed <= maxConnections,
    `${instances} instances x ${workers} workers x ${perWorker} connections + ${reserved} = ${needed} > max_connections ${maxConnections}`,
  );
});

test('one migration command: package.json, the leader-only container command and the migrate module agree', () => {
  const script = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['db:migrate']!;
  assert.match(script, /^node-pg-migrate up /);
  assert.ok(script.includes(`--migrations-dir ${path.relative(root, migrationsDir)}`), script);
  assert.ok(script.includes(`--migrations-table ${migrationsTable}`), script);
  assert.ok(script.includes(`--database-url-var ${databaseUrlVariable}`), script);
  const commands = files.flatMap((f) =>
    Object.entries((f.data.container_commands ?? {}) as Record<string, { command: string; leader_only?: boolean; test?: string }>),
  );
  const migrate = commands.filter(([, c]) => c.command.includes('db:migrate'));
  assert.equal(migrate.length, 1);
  assert.equal(migrate[0]![1].command, 'npm run db:migrate');
  assert.equal(migrate[0]![1].leader_only, true, 'one instance migrates, not every instance of the fleet');
  assert.ok(migrate[0]![1].test?.includes(`$${databaseUrlVariable}`), 'SQLite environments skip it');
  assert.ok((bundleEntries as readonly string[]).includes(path.relative(root, migrationsDir)), 'the bundle carries the migrations');
  const deps = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
  assert.ok(deps['node-pg-migrate'] && deps.pg, 'the instance installs the migration tool (production dependencies only)');
  assert.ok(fs.readdirSync(migrationsDir).every((f) => /^\d{13}_[a-z0-9-_]+\.sql$/.test(f)));
});
