// The CloudFormation Resources in .ebextensions through cfn-lint (PyPI, pinned, linked as
// .venv-cfn-lint by scripts/setup-system.sh), in a template like the one Elastic Beanstalk adds
// them to.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { cfnLint } from '../../test/cfn-lint';
import { loadConfigFiles, optionSettings, resolveOptionSettings, resources } from './ebextensions';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-cfn-lint-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const subnets = ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'];

/** Elastic Beanstalk's own resources that ours refer to, with the least configuration cfn-lint requires of their type. */
const standIns: Record<string, { Type: string; Properties: Record<string, unknown> }> = {
  AWSEBV2LoadBalancer: { Type: 'AWS::ElasticLoadBalancingV2::LoadBalancer', Properties: { Type: 'application', Subnets: subnets } },
  AWSEBAutoScalingGroup: {
    Type: 'AWS::AutoScaling::AutoScalingGroup',
    Properties: { MinSize: '2', MaxSize: '20', VPCZoneIdentifier: subnets, LaunchTemplate: { LaunchTemplateId: 'lt-0123456789abcdef0', Version: '1' } },
  },
};

/**
 * The .ebextensions resources inside a template. Elastic Beanstalk's own template declares
 * the parameter and the resources they refer to (Ref AWSEBEnvironmentName, Fn::GetAtt
 * AWSEBV2LoadBalancer.DNSName, Ref AWSEBAutoScalingGroup); cfn-lint resolves references only
 * within the file it reads, so the wrapper declares stand-ins for those, with the type Elastic
 * Beanstalk gives them. Properties we give one of Elastic Beanstalk's resources (the group's
 * DefaultInstanceWarmup) are merged into its stand-in, as Elastic Beanstalk merges them into
 * its own. Nothing of ours is changed.
 */
function wrap(own: Record<string, unknown>): Record<string, unknown> {
  const resources: Record<string, unknown> = { ...standIns };
  for (const [name, resource] of Object.entries(own)) {
    const standIn = standIns[name];
    const properties = (resource as { Properties?: Record<string, unknown> }).Properties;
    resources[name] = standIn ? { ...standIn, Properties: { ...standIn.Properties, ...properties } } : resource;
  }
  return {
    AWSTemplateFormatVersion: '2010-09-09',
    Description: 'Kiosk .ebextensions resources, with stand-ins for what Elastic Beanstalk declares',
    Parameters: { AWSEBEnvironmentName: { Type: 'String' } },
    Resources: resources,
  };
}

function lint(template: Record<string, unknown>, name: string): { status: number | null; output: string } {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${JSON.stringify(template, null, 2)}\n`);
  return cfnLint(file);
}

/** Our resources with Fn::GetOptionSetting resolved, as Elastic Beanstalk hands them to CloudFormation. */
function ownResources(): Record<string, unknown> {
  const files = loadConfigFiles();
  const own = Object.fromEntries(Object.entries(resources(files)).map(([name, { file: _file, ...resource }]) => [name, resource]));
  return resolveOptionSettings(own, optionSettings(files));
}

test('cfn-lint passes the Resources: no error, no warning', { timeout: 120_000 }, () => {
  const own = ownResources();
  assert.ok(Object.keys(own).length >= 5, 'the CloudFront resources are there');
  for (const name of ['KioskOverloadScaleOutPolicy', 'KioskOverloadAlarm', 'KioskScaleInPolicy', 'KioskScaleInAlarm']) assert.ok(own[name], `${name} is there`);
  const { status, output } = lint(wrap(own), 'ebextensions.json');
  // cfn-lint's exit code is a bit field: 2 errors, 4 warnings, 8 informational.
  assert.equal(status, 0, output);
});

test('cfn-lint does check them: a misspelt property and a wrong type in the distribution fail', { timeout: 120_000 }, () => {
  const own = ownResources() as { KioskDistribution: { Properties: { DistributionConfig: { Origins: { CustomOriginConfig: Record<string, unknown> }[] } } } };
  const origin = own.KioskDistribution.Properties.DistributionConfig.Origins[0]!.CustomOriginConfig;
  origin.OriginReadTimout = origin.OriginReadTimeout;
  delete origin.OriginReadTimeout;
  origin.HTTPPort = 'eighty';
  const { status, output } = lint(wrap(own), 'broken.json');
  assert.ok((status ?? 0) & 2, `expected errors, got status ${status}:\n${output}`);
  assert.match(output, /OriginReadTimout/);
  assert.match(output, /eighty/);
});

test("cfn-lint checks the origin's Origin Shield: a misspelt region property and a flag that is not a boolean fail", { timeout: 120_000 }, () => {
  const own = ownResources() as { KioskDistribution: { Properties: { DistributionConfig: { Origins: { OriginShield: Record<string, unknown> }[] } } } };
  const shield = own.KioskDistribution.Properties.DistributionConfig.Origins[0]!.OriginShield;
  assert.deepEqual({ ...shield }, { Enabled: true, OriginShieldRegion: 'eu-west-1' }, 'resolved as Elastic Beanstalk hands it over');
  shield.OriginShieldRegoin = shield.OriginShieldRegion;
  delete shield.OriginShieldRegion;
  shield.Enabled = 'sometimes';
  const { status, output } = lint(wrap(own as unknown as Record<string, unknown>), 'broken-shield.json');
  assert.ok((status ?? 0) & 2, `expected errors, got status ${status}:\n${output}`);
  assert.match(output, /OriginShieldRegoin/);
  assert.match(output, /sometimes/);
});

test('cfn-lint checks the scaling resources too: a misspelt step property and a period of the wrong type fail', { timeout: 120_000 }, () => {
  type Scaling = {
    KioskOverloadScaleOutPolicy: { Properties: { StepAdjustments: Record<string, unknown>[] } };
    KioskOverloadAlarm: { Properties: { Metrics: { MetricStat?: { Period: unknown } }[] } };
  };
  const own = ownResources() as unknown as Scaling;
  const first = own.KioskOverloadScaleOutPolicy.Properties.StepAdjustments[0]!;
  first.ScalingAdjusment = first.ScalingAdjustment;
  delete first.ScalingAdjustment;
  own.KioskOverloadAlarm.Properties.Metrics[0]!.MetricStat!.Period = 'ten seconds';
  const { status, output } = lint(wrap(own as unknown as Record<string, unknown>), 'broken-scaling.json');
  assert.ok((status ?? 0) & 2, `expected errors, got status ${status}:\n${output}`);
  assert.match(output, /ScalingAdjusment/);
  assert.match(output, /ten seconds/);
});
