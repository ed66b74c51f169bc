// The Elastic Beanstalk configuration as data: every .ebextensions file parses, uses only the
// keys Elastic Beanstalk reads, sets each option once and says why, and agrees with what it
// must agree with: the Nginx rendering, the app's config, the Procfile and the build. Whether
// an option or value is one Elastic Beanstalk knows is Elastic Beanstalk's to say (it refuses
// an unknown one at deployment); whether the scaling policy meets the newsroom's objective is
// the capacity simulator's (tools/capacity/recommend.test.ts runs it on these files).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../../server/config';
import { ebConfigPath, renderEbConfig } from '../nginx/render';
import { route } from '../../src/request-kinds';
import {
  disagreements,
  environmentProperties,
  loadConfigFiles,
  nginxDirective,
  optionSettings,
  platformDir,
  procfilePath,
  resources,
  root,
  seconds,
  settingValue,
} from './ebextensions';

/** vCPUs of the instance types this configuration may name: one Node worker each. */
const vcpus: Record<string, number> = {
  'c5.large': 2,
  'c5.xlarge': 4,
  'c5.2xlarge': 8,
  'c5.4xlarge': 16,
  'c6i.large': 2,
  'c6i.xlarge': 4,
  'c6i.2xlarge': 8,
  'c7i.large': 2,
  'c7i.xlarge': 4,
  'c7i.2xlarge': 8,
};

const topLevelKeys = new Set(['option_settings', 'Resources', 'files', 'commands', 'container_commands', 'packages', 'groups', 'users', 'sources', 'services']);

const files = loadConfigFiles();
const settings = optionSettings(files);
const env = environmentProperties(settings);
const value = (namespace: string, option: string) => settingValue(settings, namespace, option);

test('every .ebextensions file is a YAML .config with only the keys Elastic Beanstalk reads', () => {
  const names = fs.readdirSync(path.join(root, '.ebextensions'));
  assert.ok(files.length >= 5, `found ${files.length} config files`);
  assert.deepEqual(
    names.filter((n) => !n.endsWith('.config')),
    [],
    'Elastic Beanstalk reads only *.config here',
  );
  for (const file of files) {
    for (const key of Object.keys(file.data)) assert.ok(topLevelKeys.has(key), `${file.name}: unknown top-level key "${key}"`);
    // Short-form intrinsics (!Ref, !GetAtt) are CloudFormation YAML, not ebextensions YAML.
    assert.doesNotMatch(file.text, /!(Ref|GetAtt|Join|Sub|If)\b/, `${file.name} uses a short-form intrinsic`);
  }
});

test('every option is a plain value, set once', () => {
  assert.ok(settings.length > 30);
  const seen = new Map<string, string>();
  for (const s of settings) {
    const where = `${s.file}:${s.line} ${s.namespace} ${s.option}`;
    assert.ok(['string', 'number', 'boolean'].includes(typeof s.value) || s.option === 'ConfigDocument', `${where}: not a plain value`);
    const key = `${s.namespace}/${s.option}`;
    assert.ok(!seen.has(key), `${where}: also set in ${seen.get(key)}; the later file would silently win`);
    seen.set(key, s.file);
  }
});

test('every option says why: a comment on the line above it or at its end', () => {
  for (const file of files) {
    const lines = file.text.split('\n');
    for (const s of settings.filter((x) => x.file === file.name)) {
      const own = lines[s.line - 1] ?? '';
      const above = (lines[s.line - 2] ?? '').trim();
      assert.ok(above.startsWith('#') || / #\s*\S/.test(own), `${file.name}:${s.line} ${s.namespace} ${s.option} has no comment`);
    }
  }
});

test('the scaling settings agree with each other', () => {
  const trigger = (option: string) => value('aws:autoscaling:trigger', option) as number;
  // Elastic Beanstalk changes one of the three when they disagree.
  assert.equal(trigger('BreachDuration'), trigger('Period') * trigger('EvaluationPeriods'));
  // A 1-minute period needs 1-minute EC2 metrics.
  if (trigger('Period') === 1) assert.equal(value('aws:autoscaling:launchconfiguration', 'MonitoringInterval'), '1 minute');
  assert.ok(trigger('LowerThreshold') < trigger('UpperThreshold'));
  assert.ok(trigger('LowerBreachScaleIncrement') < 0 && trigger('UpperBreachScaleIncrement') > 0);

  const min = value('aws:autoscaling:asg', 'MinSize') as number;
  const max = value('aws:autoscaling:asg', 'MaxSize') as number;
  assert.ok(max >= min + trigger('UpperBreachScaleIncrement'), `MaxSize ${max} leaves no room for one step up from MinSize ${min}`);
  // A rolling deployment never takes the fleet below what the policy keeps at the least.
  assert.equal(value('aws:autoscaling:updatepolicy:rollingupdate', 'MinInstancesInService'), min);
});

test('one worker per vCPU, on every instance type the fleet may launch', () => {
  const types = String(value('aws:ec2:instances', 'InstanceTypes')).split(',');
  for (const type of types) {
    assert.ok(vcpus[type], `add ${type}'s vCPU count to this test's table`);
    assert.equal(Number(env.WEB_CONCURRENCY), vcpus[type], `${type} has ${vcpus[type]} vCPUs; WEB_CONCURRENCY is ${env.WEB_CONCURRENCY}`);
  }
});

test("the load balancer's health check and enhanced health read what Nginx serves and writes", () => {
  const nginx = fs.readFileSync(ebConfigPath, 'utf8');
  // The platform's Nginx is ours only when the proxy is Nginx.
  assert.equal(value('aws:elasticbeanstalk:environment:proxy', 'ProxyServer'), 'nginx');
  const port = value('aws:elasticbeanstalk:environment:process:default', 'Port') as number;
  assert.match(nginx, new RegExp(`listen ${port} default_server`), `Nginx listens on the process port ${port}`);
  const healthPath = String(value('aws:elasticbeanstalk:environment:process:default', 'HealthCheckPath'));
  assert.equal(healthPath, route('health').exact, "the route table's health check");
  const block = new RegExp(`location = ${healthPath.replace(/[/$.]/g, '\\$&')} \\{([\\s\\S]*?)\\n {8}\\}`).exec(nginx)?.[1] ?? '';
  assert.match(block, /proxy_pass http:\/\/kiosk_workers;/, `Nginx proxies ${healthPath} to the workers, never a fallback`);
  assert.doesNotMatch(block, /error_page/);
  // Enhanced health reads the instance's requests from the healthd log the rendering writes.
  if (value('aws:elasticbeanstalk:healthreporting:system', 'SystemType') === 'enhanced') {
    assert.match(nginx, /access_log \/var\/log\/nginx\/healthd\/application\.log\.\$year-\$month-\$day-\$hour healthd;/);
  }
});

test('the environment properties agree with .platform/nginx/nginx.conf: ports, host, assets, keep-alive', () => {
  const nginx = fs.readFileSync(ebConfigPath, 'utf8');
  assert.deepEqual(disagreements(env, nginx), []);
});

test('a drift between the two is caught, whichever side moved', () => {
  const eightWorkers = renderEbConfig(8);
  assert.match(disagreements(env, eightWorkers).join('\n'), /worker ports 8080, 8081, 8082, 8083, but Nginx's upstream lists 8080, .*8087/);
  assert.match(disagreements({ ...env, PORT: '9000' }, renderEbConfig()).join('\n'), /worker ports 9000/);
  assert.match(disagreements({ ...env, LISTEN_MODE: 'shared' }, renderEbConfig()).join('\n'), /LISTEN_MODE/);
  assert.match(disagreements({ ...env, HOST: '0.0.0.0' }, renderEbConfig()).join('\n'), /HOST=0\.0\.0\.0/);
  assert.match(disagreements({ ...env, DIST_DIR: '/srv/dist' }, renderEbConfig()).join('\n'), /DIST_DIR/);
  assert.match(disagreements({ ...env, KEEP_ALIVE_TIMEOUT_MS: '30000' }, renderEbConfig()).join('\n'), /502/);
  // Admission: Nginx's caps are rendered from these; eb setenv alone would split the two.
  assert.match(
    disagreements({ ...env, SSR_QUEUE_LIMIT: '20' }, renderEbConfig()).join('\n'),
    /SSR_QUEUE_LIMIT is 20 but Nginx's kiosk_pages caps its workers at 15/,
  );
  assert.match(disagreements({ ...env, API_QUEUE_LIMIT: '10' }, renderEbConfig()).join('\n'), /API_QUEUE_LIMIT is 10/);
  assert.match(disagreements({ ...env, CRAWLER_QUEUE_LIMIT: '40' }, renderEbConfig()).join('\n'), /kiosk_crawlers/);
  assert.match(disagreements({ ...env, SHELL_S_MAXAGE_S: '5' }, renderEbConfig()).join('\n'), /s-maxage=2/);
  assert.deepEqual(disagreements(env, renderEbConfig()), []);
});

test("the instance's connection queues are raised to Nginx's listen backlog, and the fallback log has a directory the app owns", () => {
  const written = files.flatMap((f) => Object.entries((f.data.files ?? {}) as Record<string, { content: string }>));
  const sysctl = written.find(([target]) => target.startsWith('/etc/sysctl.d/'));
  assert.ok(sysctl, 'no .ebextensions file writes a sysctl.d file');
  const backlog = Number(/listen 80 default_server backlog=(\d+);/.exec(renderEbConfig())?.[1]);
  assert.ok(backlog >= 4096, `Nginx's listen backlog ${backlog}`);
  for (const key of ['net.core.somaxconn', 'net.ipv4.tcp_max_syn_backlog']) {
    const value = Number(new RegExp(`^${key.replace(/\./g, '\\.')} = (\\d+)$`, 'm').exec(sysctl[1].content)?.[1]);
    assert.ok(value >= backlog, `${key} ${value} would cap Nginx's backlog of ${backlog}`);
  }
  const commands = files.flatMap((f) => Object.values((f.data.commands ?? {}) as Record<string, { command: string }>)).map((c) => c.command);
  assert.ok(commands.includes(`sysctl -p ${sysctl[0]}`), 'the sysctl file is applied at deployment, not only at the next boot');
  const fallbackLog = environmentProperties(optionSettings(files)).NGINX_FALLBACK_LOG!;
  assert.match(renderEbConfig(), new RegExp(`access_log ${fallbackLog.replace(/[./]/g, '\\$&')} fallback `));
  assert.ok(commands.includes(`install -d -o webapp -g webapp -m 0750 ${path.posix.dirname(fallbackLog)}`));
});

test('Kiosk accepts the environment properties as production config, reachable only through Nginx', () => {
  const config = loadConfig(env);
  assert.equal(config.nodeEnv, 'production');
  assert.equal(config.host, '127.0.0.1', 'workers listen on loopback: only Nginx reaches them');
  assert.equal(new URL(config.siteUrl).hostname.endsWith('.invalid'), true, 'the committed placeholder cannot resolve');
  // The platform's npm install leaves devDependencies out.
  assert.equal(env.NPM_USE_PRODUCTION, 'true');
});

test('timeouts nest from the edge inwards, so the side that closes an idle connection is never the one sending', () => {
  const nginx = fs.readFileSync(ebConfigPath, 'utf8');
  const origin = (resources(files).KioskDistribution?.Properties as { DistributionConfig: { Origins: { CustomOriginConfig: Record<string, number> }[] } })
    .DistributionConfig.Origins[0]!.CustomOriginConfig;
  const cloudFrontIdle = origin.OriginKeepaliveTimeout!;
  const albIdle = value('aws:elbv2:loadbalancer', 'IdleTimeout') as number;
  const nginxClientIdle = seconds(nginxDirective(nginx, 'keepalive_timeout')[0]!);
  assert.ok(cloudFrontIdle < albIdle, `CloudFront keep-alive ${cloudFrontIdle} s < ALB idle ${albIdle} s`);
  assert.ok(albIdle < nginxClientIdle, `ALB idle ${albIdle} s < Nginx keepalive_timeout ${nginxClientIdle} s`);
  const readTimeout = origin.OriginReadTimeout!;
  assert.ok(readTimeout <= seconds(nginxDirective(nginx, 'proxy_read_timeout')[0]!));
  // Deployments and scale-in: the balancer stops sending, then Node drains what is left.
  assert.ok(Number(env.SHUTDOWN_GRACE_MS) / 1000 <= (value('aws:elasticbeanstalk:environment:process:default', 'DeregistrationDelay') as number));
});

test('the content store lives outside the replaced app directory, in the directory the instance config creates', () => {
  const dbDir = path.posix.dirname(env.CONTENT_DB_PATH!);
  assert.ok(!dbDir.startsWith('/var/app/current'), 'a deployment would replace it');
  const commands = files.flatMap((f) => Object.values((f.data.commands ?? {}) as Record<string, { command: string }>));
  assert.ok(
    commands.some((c) => c.command === `install -d -o webapp -g webapp -m 0750 ${dbDir}`),
    `no command creates ${dbDir} for the webapp user`,
  );
});

test('the CloudWatch agent hook applies the configuration the instance config writes, after deployments and configuration changes', () => {
  const hook = path.join(platformDir, 'hooks/postdeploy/10-cloudwatch-agent.sh');
  const twin = path.join(platformDir, 'confighooks/postdeploy/10-cloudwatch-agent.sh');
  assert.equal(fs.readFileSync(twin, 'utf8'), fs.readFileSync(hook, 'utf8'), 'the confighooks copy differs');
  // That every hook is executable and parses: platform-hooks.services.test.ts.
  const agentFile = /config=(\S+)/.exec(fs.readFileSync(hook, 'utf8'))?.[1];
  const written = files.flatMap((f) => Object.entries((f.data.files ?? {}) as Record<string, { content: string }>));
  const agentConfig = written.find(([target]) => target === agentFile);
  assert.ok(agentConfig, `no .ebextensions file writes ${agentFile}`);
  const json = JSON.parse(agentConfig[1].content) as { metrics: { metrics_collected: { mem: { measurement: string[] } } } };
  assert.ok(json.metrics.metrics_collected.mem.measurement.includes('mem_used_percent'));
  const limit = written.find(([target]) => target === '/etc/systemd/system/web.service.d/kiosk-nofile.conf');
  assert.match(limit?.[1].content ?? '', /^LimitNOFILE=(\d{5,})$/m);
});

test('the Procfile seeds demo content only when SEED_DEMO_CONTENT asks for it, then becomes the cluster, from entries the server build produces', async () => {
  const lines = fs.readFileSync(procfilePath, 'utf8').split('\n').filter(Boolean);
  assert.equal(lines.length, 1);
  // The platform's own check of every Procfile line.
  assert.match(lines[0]!, /^[A-Za-z0-9_-]+:\s*[^\s].*$/);
  assert.match(lines[0]!, /node dist\/server\/seed-demo\.cjs && exec node dist\/server\/index\.cjs$/, 'the seed step, then the cluster in its place');
  // Nothing in the deployed environment asks for made-up news: a demo sets it with eb setenv.
  assert.equal(environmentProperties(optionSettings(loadConfigFiles())).SEED_DEMO_CONTENT, undefined);
  type ConfigFactory = (env: unknown, argv: { mode: string }) => { name: string; entry: Record<string, string>; output: { filename: string } }[];
  const webpackConfig = (await import(pathToFileURL(path.join(root, 'webpack.config.js')).href)) as { default: ConfigFactory };
  const server = webpackConfig.default({}, { mode: 'production' }).find((c) => c.name === 'server')!;
  const outputs = Object.keys(server.entry).map((name) => `dist/server/${server.output.filename.replace('[name]', name)}`);
  for (const script of lines[0]!.matchAll(/node (\S+)/g)) assert.ok(outputs.includes(script[1]!), `${script[1]} is not built`);
});
