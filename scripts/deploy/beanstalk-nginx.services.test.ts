// `nginx -t` on .platform/nginx/nginx.conf where Elastic Beanstalk puts it: a temporary
// directory laid out like /etc/nginx on an Amazon Linux 2023 instance, with the files the
// platform generates beside it. The file is checked byte for byte, nothing rewritten: the
// absolute paths it names are ones `nginx -t` either opens on this machine as on the instance
// (/var/log/nginx/error.log, which Debian's nginx package creates too) or does not open at all
// (the pid file, the per-hour healthd log, the assets root). Needs root and the user "nginx",
// as on the instance (scripts/setup-system.sh creates it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { nginxBinary } from '../nginx/local';
import { ebConfigPath, originSecretConf } from '../nginx/render';
import { platformDir } from './ebextensions';

const skip = process.getuid?.() !== 0 && 'the Elastic Beanstalk rendering names /var/log/nginx and user nginx: run as root, as CI does';
let etc: string;

/**
 * What the platform writes under /etc/nginx besides nginx.conf (documented in "Reverse proxy
 * configuration": its nginx.conf includes conf.d/*.conf in http and conf.d/elasticbeanstalk/*.conf
 * in its server block, which hold the application's location and enhanced health's logging).
 */
const platformFiles: Record<string, string> = {
  'conf.d/elasticbeanstalk/00_application.conf': `location / {
    proxy_pass          http://127.0.0.1:8080;
    proxy_http_version  1.1;
    proxy_set_header    Connection          $connection_upgrade;
    proxy_set_header    Upgrade             $http_upgrade;
    proxy_set_header    Host                $host;
    proxy_set_header    X-Real-IP           $remote_addr;
    proxy_set_header    X-Forwarded-For     $proxy_add_x_forwarded_for;
}
`,
  'conf.d/elasticbeanstalk/healthd.conf': `if ($time_iso8601 ~ "^(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2})") {
    set $year $1;
    set $month $2;
    set $day $3;
    set $hour $4;
}
access_log /var/log/nginx/healthd/application.log.$year-$month-$day-$hour healthd;
`,
  'conf.d/healthd_logformat.conf': `log_format healthd '$msec"$uri"$status"$request_time"$upstream_response_time"$http_x_forwarded_for';
`,
};

function layOut(nginxConf: string): void {
  fs.rmSync(etc, { recursive: true, force: true });
  for (const [file, content] of Object.entries(platformFiles)) {
    fs.mkdirSync(path.dirname(path.join(etc, file)), { recursive: true });
    fs.writeFileSync(path.join(etc, file), content);
  }
  fs.copyFileSync('/etc/nginx/mime.types', path.join(etc, 'mime.types'));
  // The platform copies .platform/nginx/ over /etc/nginx: nginx.conf and any conf.d files.
  fs.cpSync(path.join(platformDir, 'nginx'), etc, { recursive: true });
  fs.writeFileSync(path.join(etc, 'nginx.conf'), nginxConf);
  // .ebextensions/05-instance.config makes this on the instance, before Nginx reads its config.
  fs.mkdirSync('/var/log/kiosk', { recursive: true });
  // The prebuild hook writes the origin secret's map beside nginx.conf before Nginx reads it.
  const hook = runOriginSecretHook({ ORIGIN_SECRET: 'a'.repeat(64) });
  assert.equal(hook.status, 0, hook.stderr);
}

const hookPath = path.join(platformDir, 'hooks/prebuild/20-origin-secret.sh');

/**
 * The platform hook as the instance runs it, writing into the test's /etc/nginx. A fake, because
 * Elastic Beanstalk's get-config exists only on an instance: a script that answers
 * "get-config environment -k NAME" from the given properties, as the real one does.
 */
function runOriginSecretHook(properties: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  return runHook(hookPath, properties, { KIOSK_NGINX_DIR: etc });
}

function runHook(script: string, properties: Record<string, string>, env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const fake = path.join(etc, 'fake-get-config.sh');
  const lines = Object.entries(properties).map(([k, v]) => `  ${k}) printf %s '${v}' ;;`);
  fs.writeFileSync(fake, ['#!/bin/sh', '[ "$1" = environment ] && [ "$2" = -k ] || exit 2', 'case "$3" in', ...lines, 'esac', ''].join('\n'), { mode: 0o755 });
  const result = spawnSync('bash', [script], { encoding: 'utf8', env: { PATH: process.env.PATH, KIOSK_GET_CONFIG: fake, ...env } });
  fs.rmSync(fake);
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function nginxTest(): { ok: boolean; output: string } {
  const result = spawnSync(nginxBinary(), ['-t', '-p', `${etc}/`, '-c', path.join(etc, 'nginx.conf'), '-e', path.join(etc, 'startup-error.log')], {
    encoding: 'utf8',
  });
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}`.trim() };
}

before(() => {
  etc = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-eb-etc-nginx-'));
});
after(() => fs.rmSync(etc, { recursive: true, force: true }));

test('nginx -t passes on .platform/nginx/nginx.conf in the instance layout', { skip }, () => {
  const committed = fs.readFileSync(ebConfigPath, 'utf8');
  layOut(committed);
  assert.equal(fs.readFileSync(path.join(etc, 'nginx.conf'), 'utf8'), committed);
  const result = nginxTest();
  assert.ok(result.ok, result.output);
  assert.match(result.output, /syntax is ok/);
  assert.match(result.output, /test is successful/);
});

test("the rendering stands alone: pulling in the platform's generated files would break it", { skip }, () => {
  const committed = fs.readFileSync(ebConfigPath, 'utf8');
  // It defines its own location / and healthd logging; the platform's would duplicate them.
  assert.doesNotMatch(committed, /^\s*include\s+conf\.d/m);
  layOut(committed.replace('        location / {', '        include conf.d/elasticbeanstalk/*.conf;\n        location / {'));
  const serverLevel = nginxTest();
  assert.equal(serverLevel.ok, false);
  assert.match(serverLevel.output, /duplicate location "\/"/);
  layOut(committed.replace('    server_tokens off;', '    server_tokens off;\n    include conf.d/*.conf;'));
  const httpLevel = nginxTest();
  assert.equal(httpLevel.ok, false);
  assert.match(httpLevel.output, /duplicate "log_format" name "healthd"/);
});

test('the origin secret hook writes what the renderer would, for no secret, one, and a rotation; a bad one fails the deployment', () => {
  fs.mkdirSync(etc, { recursive: true });
  const conf = path.join(etc, 'kiosk-origin-secret.conf');
  const current = 'c'.repeat(40);
  const previous = 'p'.repeat(64);
  for (const [properties, secrets] of [
    [{}, []],
    [{ ORIGIN_SECRET: current }, [current]],
    [{ ORIGIN_SECRET: current, ORIGIN_SECRET_PREVIOUS: previous }, [current, previous]],
  ] as [Record<string, string>, string[]][]) {
    const run = runOriginSecretHook(properties);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(fs.readFileSync(conf, 'utf8'), originSecretConf(secrets));
    assert.equal(fs.statSync(conf).mode & 0o777, 0o600, 'only root reads the secret');
  }
  const bad = runOriginSecretHook({ ORIGIN_SECRET: 'short$' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /ORIGIN_SECRET must be 32 to 128 letters/);
  // Deployments (hooks/) and configuration changes such as eb setenv (confighooks/) run the same script.
  const copy = path.join(platformDir, 'confighooks/prebuild/20-origin-secret.sh');
  assert.equal(fs.readFileSync(copy, 'utf8'), fs.readFileSync(hookPath, 'utf8'));
  for (const file of [hookPath, copy]) assert.ok(fs.statSync(file).mode & 0o100, `${file} is executable`);
});

test('.platform/nginx holds nginx.conf alone: the rendering includes no conf.d, so another file there would be ignored', () => {
  assert.deepEqual(fs.readdirSync(path.join(platformDir, 'nginx')), ['nginx.conf']);
});

test("the last good copies' hook makes LAST_GOOD_DIR for the app's user, readable by Nginx's; nothing without it; a bad one fails the deployment", () => {
  fs.mkdirSync(etc, { recursive: true });
  const script = path.join(platformDir, 'hooks/prebuild/30-last-good-directory.sh');
  const owner = { KIOSK_LAST_GOOD_OWNER: os.userInfo().username };
  const dir = path.join(etc, 'var/lib/kiosk/last-good');
  const made = runHook(script, { LAST_GOOD_DIR: dir }, owner);
  assert.equal(made.status, 0, made.stderr);
  for (const each of [dir, path.dirname(dir)]) assert.equal(fs.statSync(each).mode & 0o777, 0o755, `${each} is 0755: Nginx's user reads the copies`);
  assert.equal(fs.statSync(dir).uid, os.userInfo().uid);
  const unset = runHook(script, {}, owner);
  assert.equal(unset.status, 0, unset.stderr);
  assert.match(unset.stdout, /LAST_GOOD_DIR is not set/);
  for (const bad of ['relative/last-good', '/last-good', '/var/../last-good', '/var/lib/kiosk/last good', '/var/lib/$(id)']) {
    const refused = runHook(script, { LAST_GOOD_DIR: bad }, owner);
    assert.equal(refused.status, 1, bad);
    assert.match(refused.stderr, /LAST_GOOD_DIR must be an absolute directory of its own/);
  }
  const copy = path.join(platformDir, 'confighooks/prebuild/30-last-good-directory.sh');
  assert.equal(fs.readFileSync(copy, 'utf8'), fs.readFileSync(script, 'utf8'));
  for (const file of [script, copy]) assert.ok(fs.statSync(file).mode & 0o100, `${file} is executable`);
});
