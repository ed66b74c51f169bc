// npm run edge: switches the DDoS kit (cloudformation/edge-protection.yaml, a stack in us-east-1)
// by changing its parameters with UpdateStack on the template already deployed. Nothing else of
// the stack changes, and the command undoing each switch is printed with it.
import { CloudFormationClient, DescribeStacksCommand, UpdateStackCommand, waitUntilStackUpdateComplete, type Stack } from '@aws-sdk/client-cloudformation';
import {
  CountryError,
  applyChange,
  describeChange,
  describeRules,
  edgeRegion,
  parameterValues,
  parametersFrom,
  parseCountries,
  rulesFor,
  templateDefaults,
  type Change,
  type EdgeParameters,
} from './web-acl';
import { parseCommandLine, UsageError } from '@kiosk/surface';

const usage = `Usage: npm run edge -- <command> [options]

Switches Kiosk's edge protection: the AWS WAF web ACL on the CloudFront distribution, deployed in
us-east-1 from cloudformation/edge-protection.yaml (see tools/edge/README.md). Each command changes
only the stack's parameters (the template already deployed is kept) and waits for the update.

Commands:
  status                      the rules as deployed now
  block-countries CODES       block requests from these countries at the edge (403), e.g. FI,SE:
                              ISO 3166-1 alpha-2 codes, comma-separated
  unblock-countries           undo block-countries: the country rule counts again (the same countries,
                              so their share stays visible)
  rate-limit block|count      block (or only count) a client IP over the per-IP limit
                              (undo: the other one)

Options:
  --limit N                   with rate-limit: requests per client IP in 5 minutes (100 and up)
  --dry-run                   print the change to the template's parameters and rules; change nothing
  --stack NAME                default: kiosk-edge-$KIOSK_ENV
  --no-wait                   return once CloudFormation has accepted the update
  -h, --help                  show this help

AWS credentials come from the SDK's usual chain; AWS_ENDPOINT_URL_CLOUDFORMATION points it at another
endpoint. Exit codes: 0 done (or nothing to change), 1 AWS refused or could not be reached, 2 bad arguments.
`;

interface Command {
  name: 'status' | 'block-countries' | 'unblock-countries' | 'rate-limit';
  change?: Change;
  stack: string;
  dryRun: boolean;
  wait: boolean;
}

function readCommand(args: string[]): Command | 'help' {
  const parsed = parseCommandLine(args, {
    allowPositionals: true,
    options: {
      limit: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      stack: { type: 'string' },
      'no-wait': { type: 'boolean', default: false },
    },
  });
  if (parsed === null) return 'help';
  const { values, positionals } = parsed;
  const [name, argument, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected "${rest.join(' ')}"`);
  const environment = process.env.KIOSK_ENV;
  const stack = values.stack ?? (environment ? `kiosk-edge-${environment}` : undefined);
  if (!stack) throw new UsageError('name the stack: --stack NAME, or set KIOSK_ENV (the stack is kiosk-edge-$KIOSK_ENV)');
  const base = { stack, dryRun: values['dry-run'], wait: !values['no-wait'] };
  if (values.limit !== undefined && name !== 'rate-limit') throw new UsageError('--limit goes with rate-limit');
  switch (name) {
    case 'status':
    case 'unblock-countries':
      if (argument !== undefined) throw new UsageError(`${name} takes no argument, got "${argument}"`);
      return name === 'status' ? { name, ...base } : { name, change: { kind: 'unblock-countries' }, ...base };
    case 'block-countries':
      if (argument === undefined) throw new UsageError('block-countries needs the countries, e.g. block-countries FI,SE');
      return { name, change: { kind: 'block-countries', countries: parseCountries(argument) }, ...base };
    case 'rate-limit': {
      if (argument !== 'block' && argument !== 'count') throw new UsageError('rate-limit takes block or count');
      let limitPer5Min: number | undefined;
      if (values.limit !== undefined) {
        limitPer5Min = Number(values.limit);
        if (!Number.isInteger(limitPer5Min) || limitPer5Min < 100) throw new UsageError(`--limit must be a whole number from 100, got "${values.limit}"`);
      }
      return { name, change: { kind: 'rate-limit', action: argument, limitPer5Min }, ...base };
    }
    default:
      throw new UsageError(name ? `unknown command "${name}"` : 'name a command: status, block-countries, unblock-countries or rate-limit');
  }
}

async function describeStack(client: CloudFormationClient, name: string): Promise<Stack> {
  const { Stacks = [] } = await client.send(new DescribeStacksCommand({ StackName: name }));
  if (!Stacks[0]) throw new Error(`no stack ${name} in ${edgeRegion}`);
  return Stacks[0];
}

function parametersOf(stack: Stack): EdgeParameters {
  return parametersFrom(Object.fromEntries((stack.Parameters ?? []).map((p) => [p.ParameterKey!, p.ParameterValue])));
}

const undoOf: Record<Command['name'], string> = {
  status: '',
  'block-countries': 'npm run edge -- unblock-countries',
  'unblock-countries': 'npm run edge -- block-countries <codes>',
  'rate-limit': 'npm run edge -- rate-limit <the other of block, count>',
};

async function run(client: CloudFormationClient, command: Command): Promise<number> {
  const stack = await describeStack(client, command.stack);
  const current = parametersOf(stack);
  console.log(`edge: stack ${command.stack} (${edgeRegion}): ${stack.StackStatus}`);
  if (command.name === 'status') {
    for (const line of describeRules(rulesFor(current))) console.log(`  ${line}`);
    const acl = stack.Outputs?.find((o) => o.OutputKey === 'WebAclArn')?.OutputValue;
    if (acl) console.log(`  web ACL: ${acl}`);
    return 0;
  }
  const next = applyChange(current, command.change!);
  for (const line of describeChange(current, next)) console.log(line);
  const values = parameterValues(next);
  if (JSON.stringify(values) === JSON.stringify(parameterValues(current))) return 0;
  if (command.dryRun) {
    console.log('dry run: nothing changed');
    return 0;
  }
  if (stack.StackStatus?.endsWith('_IN_PROGRESS')) throw new Error(`the stack is ${stack.StackStatus}: wait for it, then run this again`);
  await client.send(
    new UpdateStackCommand({
      StackName: command.stack,
      // The template deployed stays: an incident is no time to roll out template changes as well.
      UsePreviousTemplate: true,
      Parameters: Object.entries(values).map(([ParameterKey, ParameterValue]) => ({ ParameterKey, ParameterValue })),
    }),
  );
  console.log(`edge: update of ${command.stack} started`);
  if (command.wait) {
    await waitUntilStackUpdateComplete({ client, maxWaitTime: 900, minDelay: 5, maxDelay: 15 }, { StackName: command.stack });
    console.log(`edge: ${command.stack} updated; WAF applies it at the edge within minutes`);
  }
  console.log(`edge: undo with: ${undoOf[command.name]}`);
  return 0;
}

/** A dry run without AWS at hand: the change from the template's defaults. */
function offlineDryRun(command: Command, reason: string): number {
  const defaults = parametersFrom({ EnvironmentName: command.stack.replace(/^kiosk-edge-/, '') }, templateDefaults());
  console.log(`edge: could not read stack ${command.stack} (${reason}); showing the change from the template's defaults`);
  for (const line of describeChange(defaults, applyChange(defaults, command.change!))) console.log(line);
  console.log('dry run: nothing changed');
  return 0;
}

function explain(error: unknown): string {
  const e = error as { name?: string; message?: string };
  if (e?.name === 'CredentialsProviderError' || /credential/i.test(e?.message ?? '')) {
    return `no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE (${e?.message})`;
  }
  if (/does not exist/i.test(e?.message ?? '')) {
    return `${e?.message} in ${edgeRegion}: deploy the kit first (docs/deploy.md, "Edge protection"), or name its stack with --stack`;
  }
  return `${e?.name ?? 'Error'}: ${e?.message ?? String(error)}`;
}

async function main(args: string[]): Promise<number> {
  let command: Command | 'help';
  try {
    command = readCommand(args);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`edge: ${message}${error instanceof CountryError ? '' : `\n\n${usage}`}`);
    return 2;
  }
  if (command === 'help') {
    console.log(usage);
    return 0;
  }
  const client = new CloudFormationClient({ region: edgeRegion, maxAttempts: 3 });
  try {
    await client.config.credentials();
    return await run(client, command);
  } catch (error) {
    if (command.dryRun && command.change) return offlineDryRun(command, explain(error));
    console.error(`edge ${command.name} failed: ${explain(error)}`);
    return 1;
  } finally {
    client.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`edge: ${explain(error)}`);
    process.exit(1);
  },
);
