// The edge cannot be bypassed, and what reaches the origin is logged: the load balancer's
// security group, its access logs and the header CloudFront adds, against what Nginx checks
// (scripts/nginx/render.ts). cfn-lint checks the same resources in cfn-lint.services.test.ts;
// real Nginx refuses a request without the header in scripts/nginx/nginx.services.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originSecretHeader, originSecretPattern, originSecretPlaceholder } from '../nginx/render';
import { loadConfigFiles, optionSettings, resolveOptionSettings, resources, settingValue } from './ebextensions';

const files = loadConfigFiles();
const settings = optionSettings(files);
const all = resolveOptionSettings(resources(files), settings);
const option = (name: string) => settingValue(settings, 'aws:elbv2:loadbalancer', name);
/** An option_settings value that Elastic Beanstalk evaluates as CloudFormation: '`{"Ref": "X"}`'. */
const refIn = (value: unknown) => (/^`(\{.*\})`$/.exec(String(value)) ? (JSON.parse(String(value).slice(1, -1)) as { Ref?: string }).Ref : undefined);

test("the load balancer takes HTTP only from CloudFront's origin-facing addresses", () => {
  const group = refIn(option('SecurityGroups'));
  assert.equal(group, 'KioskLoadBalancerSecurityGroup');
  // The managed group is the one Elastic Beanstalk opens the instances to: the same one.
  assert.equal(refIn(option('ManagedSecurityGroup')), group);
  const sg = all[group]!;
  assert.equal(sg.Type, 'AWS::EC2::SecurityGroup');
  const ingress = sg.Properties!.SecurityGroupIngress as Record<string, unknown>[];
  assert.equal(ingress.length, 1);
  assert.deepEqual(
    { ...ingress[0], Description: undefined },
    { IpProtocol: 'tcp', FromPort: 80, ToPort: 80, SourcePrefixListId: 'pl-4fa04526', Description: undefined },
  );
  assert.ok(!JSON.stringify(sg).includes('0.0.0.0/0') && !JSON.stringify(sg).includes('::/0'), 'no rule open to everyone');
  // The load balancer's port: where the process listens is what the group lets in.
  assert.equal(settingValue(settings, 'aws:elasticbeanstalk:environment:process:default', 'Port'), 80);
});

test('every request to the origin carries the secret header Nginx checks', () => {
  const distribution = all.KioskDistribution!.Properties!.DistributionConfig as {
    Origins: { OriginCustomHeaders: { HeaderName: string; HeaderValue: string }[] }[];
  };
  const [origin] = distribution.Origins;
  assert.deepEqual(
    origin!.OriginCustomHeaders.map((h) => h.HeaderName),
    [originSecretHeader],
  );
  // The files set no secret (it is set on the environment: eb setenv ORIGIN_SECRET=...), and
  // without one Nginx checks nothing, so the placeholder CloudFront sends then is harmless; it
  // has the secret's format, so turning the check on can accept it for a while (deploy.md).
  assert.equal(settingValue(settings, 'aws:elasticbeanstalk:application:environment', 'ORIGIN_SECRET'), undefined);
  assert.equal(origin!.OriginCustomHeaders[0]!.HeaderValue, originSecretPlaceholder);
  assert.match(originSecretPlaceholder, originSecretPattern);
  const raw = resources(files).KioskDistribution!.Properties!.DistributionConfig as { Origins: { OriginCustomHeaders: { HeaderValue: unknown }[] }[] };
  assert.deepEqual(raw.Origins[0]!.OriginCustomHeaders[0]!.HeaderValue, {
    'Fn::GetOptionSetting': { Namespace: 'aws:elasticbeanstalk:application:environment', OptionName: 'ORIGIN_SECRET', DefaultValue: originSecretPlaceholder },
  });
});

test("the distribution: additional metrics on, the DDoS kit's web ACL attached when named", () => {
  const monitoring = Object.values(all).filter((r) => r.Type === 'AWS::CloudFront::MonitoringSubscription');
  assert.equal(monitoring.length, 1);
  assert.deepEqual(monitoring[0]!.Properties, {
    DistributionId: { Ref: 'KioskDistribution' },
    MonitoringSubscription: { RealtimeMetricsSubscriptionConfig: { RealtimeMetricsSubscriptionStatus: 'Enabled' } },
  });
  const raw = resources(files).KioskDistribution!.Properties!.DistributionConfig as { WebACLId: unknown };
  assert.deepEqual(raw.WebACLId, { 'Fn::GetOptionSetting': { Namespace: 'aws:elasticbeanstalk:customoption', OptionName: 'EdgeWebAclArn', DefaultValue: '' } });
  // Empty until an operator attaches the kit (docs/deploy.md): CloudFront reads "" as none.
  assert.equal((all.KioskDistribution!.Properties!.DistributionConfig as { WebACLId: string }).WebACLId, '');
});

test('access logs go to a bucket that Elastic Load Balancing may write to, under the prefix the load balancer uses', () => {
  assert.equal(option('AccessLogsS3Enabled'), true);
  const bucket = refIn(option('AccessLogsS3Bucket'));
  assert.equal(bucket, 'KioskAccessLogsBucket');
  assert.equal(all[bucket]!.Type, 'AWS::S3::Bucket');
  const prefix = option('AccessLogsS3Prefix') as string;
  const policy = Object.values(all).find((r) => r.Type === 'AWS::S3::BucketPolicy')!;
  assert.deepEqual(policy.Properties!.Bucket, { Ref: bucket });
  const statements = (policy.Properties!.PolicyDocument as { Statement: { Effect: string; Principal: unknown; Action: string; Resource: unknown }[] })
    .Statement;
  const writers = statements.filter((s) => s.Effect === 'Allow' && s.Action === 's3:PutObject');
  assert.deepEqual(
    writers.map((s) => s.Principal),
    [{ Service: 'logdelivery.elasticloadbalancing.amazonaws.com' }, { AWS: { 'Fn::Join': ['', ['arn:aws:iam::', '156460612806', ':root']] } }],
  );
  for (const s of writers) {
    // "bucket[/prefix]/AWSLogs/aws-account-id/...": the load balancer writes nowhere else.
    assert.deepEqual(s.Resource, { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, `/${prefix}/AWSLogs/`, { Ref: 'AWS::AccountId' }, '/*']] });
  }
  const props = all[bucket]!.Properties as { BucketEncryption: unknown; PublicAccessBlockConfiguration: Record<string, boolean> };
  // The only encryption access log delivery supports.
  assert.deepEqual(props.BucketEncryption, { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
  assert.ok(Object.values(props.PublicAccessBlockConfiguration).every(Boolean));
});
