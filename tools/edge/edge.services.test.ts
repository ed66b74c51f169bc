// npm run edge against moto's CloudFormation: the command reads the stack, changes only its
// parameters with UpdateStack (the previous template), and the stack reads back changed.
// A stand-in where moto falls short, and only there: moto cannot create AWS::WAFv2::WebACL
// through CloudFormation (its GetAtt Arn fails in moto's template parser), so the stack here is
// the kit's template with its one resource replaced by an SNS topic and the WebAclArn output by
// a literal. The parameters, conditions and outputs' names are the real template's; what the
// rules become for each parameter is tested against the real template in web-acl.test.ts, and
// the real template passes cfn-lint in tools/edge/cfn-lint.services.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import { CloudFormationClient, CreateStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { parse, stringify } from 'yaml';
import { runAwsTool, startMoto, type Moto, type ToolRun } from '../../test/moto';
import { templatePath } from './web-acl';

let moto: Moto;
let cfn: CloudFormationClient;
const stack = `kiosk-edge-e2e-${process.pid}`;

before(async () => {
  moto = await startMoto();
  cfn = new CloudFormationClient({
    region: 'us-east-1',
    endpoint: moto.endpoint,
    credentials: { accessKeyId: moto.env.AWS_ACCESS_KEY_ID, secretAccessKey: moto.env.AWS_SECRET_ACCESS_KEY },
  });
  const template = parse(fs.readFileSync(templatePath, 'utf8')) as Record<string, unknown>;
  template.Resources = { StandIn: { Type: 'AWS::SNS::Topic', Properties: {} } };
  template.Outputs = { WebAclArn: { Value: 'arn:aws:wafv2:us-east-1:123456789012:global/webacl/kiosk-edge-e2e/stand-in' } };
  await cfn.send(
    new CreateStackCommand({ StackName: stack, TemplateBody: stringify(template), Parameters: [{ ParameterKey: 'EnvironmentName', ParameterValue: 'e2e' }] }),
  );
});

after(async () => {
  cfn?.destroy();
  await moto?.stop();
});

function edge(args: string[], env: Record<string, string> = {}): Promise<ToolRun> {
  return runAwsTool('tools/edge/edge.ts', args, {
    AWS_ACCESS_KEY_ID: moto.env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: moto.env.AWS_SECRET_ACCESS_KEY,
    AWS_ENDPOINT_URL_CLOUDFORMATION: moto.endpoint,
    ...env,
  });
}

async function parameters(): Promise<Record<string, string>> {
  const { Stacks = [] } = await cfn.send(new DescribeStacksCommand({ StackName: stack }));
  return Object.fromEntries((Stacks[0]!.Parameters ?? []).map((p) => [p.ParameterKey!, p.ParameterValue!]));
}

test('status, block-countries (dry run, then for real), a repeat that changes nothing, unblock-countries', { timeout: 120_000 }, async () => {
  const status = await edge(['status', '--stack', stack]);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, /rate-per-client-ip: count a client IP over 2000 requests in 5 minutes/);
  assert.doesNotMatch(status.stdout, /countries:/);
  assert.match(status.stdout, /web ACL: arn:aws:wafv2:/);

  const dry = await edge(['block-countries', 'fi,SE', '--stack', stack, '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /GeoRuleAction: count -> block/);
  assert.match(dry.stdout, /rules after:[\s\S]*countries: BLOCK requests from FI, SE/);
  assert.match(dry.stdout, /dry run: nothing changed/);
  assert.equal((await parameters()).GeoRuleAction, 'count');

  const blocked = await edge(['block-countries', 'FI,SE', '--stack', stack]);
  assert.equal(blocked.code, 0, blocked.stderr);
  assert.match(blocked.stdout, /updated/);
  assert.match(blocked.stdout, /undo with: npm run edge -- unblock-countries/);
  const after = await parameters();
  assert.equal(after.GeoRuleAction, 'block');
  assert.match(after.GeoCountries!, /FI.*SE/);
  assert.equal(after.RateLimitAction, 'count', 'the other rule untouched');
  assert.match((await edge(['status', '--stack', stack])).stdout, /countries: BLOCK requests from FI, SE/);

  const repeat = await edge(['block-countries', 'SE,FI', '--stack', stack]);
  assert.equal(repeat.code, 0, repeat.stderr);
  assert.match(repeat.stdout, /no change/);
  assert.doesNotMatch(repeat.stdout, /update of/);

  const unblocked = await edge(['unblock-countries', '--stack', stack]);
  assert.equal(unblocked.code, 0, unblocked.stderr);
  assert.match(unblocked.stdout, /GeoRuleAction: block -> count/);
  assert.equal((await parameters()).GeoRuleAction, 'count');
  assert.match((await edge(['status', '--stack', stack])).stdout, /countries: count requests from FI, SE/);
});

test('a bad country code is a clear error, exit 2, and nothing is called; a missing stack says how to deploy it; --help', async () => {
  // No endpoint or credentials: a call would fail with exit 1, not 2.
  const bad = await edge(['block-countries', 'FI,UK', '--stack', stack], { AWS_ENDPOINT_URL_CLOUDFORMATION: 'http://127.0.0.1:9' });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /not ISO 3166-1 alpha-2 country codes: "UK"/);
  assert.doesNotMatch(bad.stderr, /^\s+at /m);
  const none = await edge(['block-countries', '--stack', stack]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /block-countries needs the countries/);
  const missing = await edge(['status', '--stack', 'kiosk-edge-nowhere']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /kiosk-edge-nowhere.*deploy the kit first/);
  const help = await edge(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /block-countries CODES/);
  assert.match(help.stdout, /unblock-countries/);
});
