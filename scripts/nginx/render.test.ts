import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { loadConfig } from '../../server/config';
import { routeTable } from '../../src/request-kinds';
import { admissionOf, ebConfigPath, ebParams, localParams, originSecretConf, renderEbConfig, renderNginxConfig, templatePath } from './render';

function directive(config: string, name: string): string[] {
  return [...config.matchAll(new RegExp(`^\\s*${name}\\s+([^;]+);`, 'gm'))].map((m) => m[1]!.trim());
}

function seconds(value: string): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(value);
  assert.ok(match, `cannot read a duration from "${value}"`);
  const n = Number(match[1]);
  return match[2] === 'ms' ? n / 1000 : match[2] === 'm' ? n * 60 : n;
}

test('the committed .platform/nginx/nginx.conf is the current rendering of nginx/kiosk.conf.template', () => {
  assert.equal(fs.readFileSync(ebConfigPath, 'utf8'), renderEbConfig(), 'run "npm run nginx:render"');
});

test('each rendering keeps its own lines and fills every value', () => {
  const eb = renderNginxConfig('eb', ebParams(4));
  const local = renderNginxConfig('local', localParams('/tmp/kiosk-x', { listen: '127.0.0.1:3000', workerPorts: [3001, 3002] }));
  for (const config of [eb, local]) {
    assert.doesNotMatch(config, /\{\{|@eb |@local /);
  }
  assert.deepEqual(directive(eb, 'user'), ['nginx']);
  assert.match(eb, /log_format healthd '\$msec"\$uri"\$status"\$request_time"\$upstream_response_time"\$http_x_forwarded_for';/);
  assert.match(eb, /access_log \/var\/log\/nginx\/healthd\/application\.log\.\$year-\$month-\$day-\$hour healthd;/);
  assert.deepEqual(directive(local, 'user'), []);
  assert.deepEqual(directive(local, 'daemon'), ['off']);
  assert.doesNotMatch(local, /\/var\/log|healthd/);
  // Each worker once per upstream: pages (SSR_QUEUE_LIMIT), crawlers (the rest of
  // CRAWLER_QUEUE_LIMIT), the API (API_QUEUE_LIMIT), and the never-fallback one (no cap).
  assert.deepEqual(
    directive(local, 'server').filter((s) => s.startsWith('127.')),
    [
      '127.0.0.1:3001 max_conns=15 max_fails=1 fail_timeout=1s',
      '127.0.0.1:3002 max_conns=15 max_fails=1 fail_timeout=1s',
      '127.0.0.1:3001 max_conns=15 max_fails=1 fail_timeout=1s',
      '127.0.0.1:3002 max_conns=15 max_fails=1 fail_timeout=1s',
      '127.0.0.1:3001 max_conns=30 max_fails=1 fail_timeout=1s',
      '127.0.0.1:3002 max_conns=30 max_fails=1 fail_timeout=1s',
      '127.0.0.1:3001 max_fails=1 fail_timeout=1s',
      '127.0.0.1:3002 max_fails=1 fail_timeout=1s',
    ],
  );
  assert.deepEqual(directive(eb, 'server').filter((s) => s.startsWith('127.')).length, 16);
});

test('the settings the newsroom learned hold in the Elastic Beanstalk rendering', () => {
  const eb = renderEbConfig();
  const connections = Number(directive(eb, 'worker_connections')[0]);
  assert.ok(connections >= 10_240, `worker_connections ${connections}`);
  assert.ok(Number(directive(eb, 'worker_rlimit_nofile')[0]) >= 2 * connections);
  assert.deepEqual(directive(eb, 'worker_processes'), ['auto']);
  assert.ok(directive(eb, 'least_conn').length === 0 && /least_conn;/.test(eb));
  assert.deepEqual(directive(eb, 'proxy_http_version'), ['1.1']);
  assert.ok(directive(eb, 'proxy_set_header').includes('Connection ""'));
  // Node must hold an idle upstream connection longer than Nginx does, or Nginx gets 502s.
  const upstreamIdleS = seconds(directive(eb, 'keepalive_timeout')[1]!);
  const node = loadConfig({ NODE_ENV: 'production' });
  assert.ok(node.keepAliveTimeoutMs / 1000 > upstreamIdleS, `Node ${node.keepAliveTimeoutMs} ms vs Nginx upstream ${upstreamIdleS} s`);
  assert.ok(node.headersTimeoutMs > node.keepAliveTimeoutMs);
  const tries = Number(directive(eb, 'proxy_next_upstream_tries')[0]);
  assert.ok(tries >= 2 && tries <= 5);
  assert.deepEqual(directive(eb, 'proxy_next_upstream'), ['error timeout']);
  assert.deepEqual(directive(eb, 'large_client_header_buffers'), ['4 8k']);
  assert.match(eb, /location \/metrics \{\s*return 404;/);
});

test('every kind of request in src/request-kinds.ts has its location, rendered from the table', () => {
  const eb = renderEbConfig();
  for (const { exact, prefix } of routeTable as readonly { exact?: string; prefix?: string }[])
    assert.ok(eb.includes(`location ${exact !== undefined ? `= ${exact}` : prefix} {`), exact ?? prefix);
  const template = fs.readFileSync(templatePath, 'utf8');
  assert.throws(
    () => renderNginxConfig('eb', ebParams(), template.replace('{{location_favicon}}', '/favicon.')),
    /no location for \{\{location_favicon\}\} \(favicon\)/,
  );
});

test('a placeholder the renderer does not know is an error, not an empty value', () => {
  assert.throws(() => renderNginxConfig('eb', ebParams(), 'listen {{nope}};\n'), /\{\{nope\}\}/);
  assert.throws(() => renderNginxConfig('eb', { ...ebParams(), workerPorts: [] }), /at least one worker port/);
});

test("admission: caps from the workers' own limits, the fallbacks wired to Nginx's own 502 only, and the flood's settings", () => {
  const eb = renderEbConfig();
  const config = loadConfig({ NODE_ENV: 'production' });
  assert.match(eb, new RegExp(`server 127\\.0\\.0\\.1:8080 max_conns=${config.ssrQueueLimit} `));
  assert.match(eb, /location \/ \{\s*proxy_pass http:\/\/\$kiosk_page_upstream;\s*error_page 502 = @last_good;\s*error_log \S+ crit;/);
  assert.match(eb, /location \/api\/ \{\s*proxy_pass http:\/\/kiosk_api;\s*error_page 502 = @api_busy;/);
  for (const never of ['= /healthz', '/preview/', '/api/ingest/', '/media/']) {
    const block = new RegExp(`location ${never.replace(/[/$]/g, '\\$&')} \\{([\\s\\S]*?)\\n {8}\\}`).exec(eb)?.[1] ?? '';
    assert.match(block, /proxy_pass http:\/\/kiosk_workers;/, `${never} goes to the uncapped upstream`);
    // An error may be answered as JSON (ingestion's 413), never replaced by the shell or the busy 503.
    assert.doesNotMatch(block, /error_page [^;]*@(shell|last_good|api_busy)/, `${never} never gets a fallback`);
  }
  assert.match(eb, /return 503 '\{"error":\{"code":"unavailable",/);
  assert.match(eb, /add_header Retry-After '5' always;/);
  assert.match(eb, /"~\*\(Googlebot\|[^"]*\)" kiosk_crawlers;/);
  // Measured: a raised priority starved server rendering under the flood (the template says how much).
  assert.deepEqual(directive(eb, 'worker_priority'), []);
  assert.match(eb, /access_log \/var\/log\/nginx\/access\.log main buffer=64k flush=1s if=\$kiosk_main_log;/);
  assert.deepEqual(directive(eb, 'multi_accept'), ['on']);
  assert.deepEqual(directive(eb, 'gzip'), ['off']);
  assert.match(eb, /listen 80 default_server backlog=16384;/);

  // A limit of 0 takes no page at all: every page gets the shell, as Node's guard does.
  const none = renderNginxConfig('eb', ebParams(2, 8080, { ...admissionOf(config), ssrQueueLimit: 0, crawlerQueueLimit: 0 }));
  assert.match(none, /upstream kiosk_pages \{[^}]*server 127\.0\.0\.1:8080 down /);
  assert.doesNotMatch(none, /upstream kiosk_crawlers/);
});

test('the last good copies: pages fall back to the copy under LAST_GOOD_DIR, then the shell; off without a directory or with 0 seconds', () => {
  const eb = renderEbConfig();
  const block = /location @last_good \{([\s\S]*?)\n {8}\}/.exec(eb)?.[1] ?? '';
  assert.deepEqual(directive(block, 'root'), ['/var/lib/kiosk/last-good/pages'], "the directory from .ebextensions' LAST_GOOD_DIR");
  assert.deepEqual(directive(block, 'try_files'), ['$uri/index.html @shell']);
  assert.deepEqual(directive(block, 'set'), ['$kiosk_fallback_answer nginx-last-good']);
  assert.match(block, /add_header X-Render-Mode 'last-good' always;/);
  assert.match(block, /add_header Cache-Control 'public, max-age=0, s-maxage=2' always;/);
  assert.match(block, /add_header Content-Security-Policy "[^"]*script-src 'self'[^"]*" always;/);
  assert.doesNotMatch(block, /nonce/);
  assert.deepEqual(directive(block, 'open_file_cache'), [], 'a removed copy is never answered from a kept descriptor');

  const config = loadConfig({ NODE_ENV: 'production' });
  const local = (env: Record<string, string>) =>
    renderNginxConfig('local', localParams('/tmp/kiosk-x', { listen: '127.0.0.1:3000', workerPorts: [3001], admission: admissionOf(loadConfig(env)) }));
  const on = local({ LAST_GOOD_DIR: '/tmp/kiosk-x/last-good' });
  assert.match(on, /error_page 502 = @last_good;/);
  assert.match(on, /root \/tmp\/kiosk-x\/last-good\/pages;/);
  for (const off of [local({}), local({ LAST_GOOD_DIR: '/tmp/kiosk-x/last-good', LAST_GOOD_SECONDS: '0' })]) {
    assert.match(off, /location \/ \{\s*proxy_pass http:\/\/\$kiosk_page_upstream;\s*error_page 502 = @shell;/);
    assert.doesNotMatch(off, /@last_good/);
  }
  assert.equal(config.lastGoodDir, null, 'no copies by default');
});

test('the origin secret: checked before any location, the health check exempt, the header stripped before Node', () => {
  const eb = renderEbConfig();
  // Relative: /etc/nginx/kiosk-origin-secret.conf, written by the prebuild hook on the instance.
  assert.deepEqual(directive(eb, 'include'), ['kiosk-origin-secret.conf']);
  // A regular expression, case-sensitive: a map's plain strings match ignoring case.
  assert.match(eb, /map "\$kiosk_origin_verified:\$uri" \$kiosk_origin_refused \{\s*default 1;\s*"~\^1:" 0;\s*"~\^0:\/healthz\$" 0;\s*\}/);
  const server = eb.slice(eb.indexOf('    server {'));
  const check = server.indexOf('if ($kiosk_origin_refused) {\n            return 403;');
  assert.ok(check > 0 && check < server.search(/^\s*location /m), 'the check comes before every location');
  assert.ok(directive(eb, 'proxy_set_header').includes('X-Kiosk-Origin-Secret ""'));
  const local = renderNginxConfig('local', localParams('/tmp/kiosk-x', { listen: '127.0.0.1:3000', workerPorts: [3001] }));
  assert.deepEqual(directive(local, 'include'), ['/tmp/kiosk-x/origin-secret.conf']);
});

test('the origin secret map: nothing checked without a secret, exact values with one or two (a rotation), refused when unsafe', () => {
  assert.equal(originSecretConf([]), 'map $http_x_kiosk_origin_secret $kiosk_origin_verified {\n    default 1;\n}\n');
  const a = 'a'.repeat(32);
  const b = 'B_-9'.repeat(16);
  assert.equal(originSecretConf([a, b]), `map $http_x_kiosk_origin_secret $kiosk_origin_verified {\n    default 0;\n    "~^${a}$" 1;\n    "~^${b}$" 1;\n}\n`);
  for (const bad of ['short', 'a'.repeat(31), `${'a'.repeat(32)}"`, `${'a'.repeat(32)}$`, `${'a'.repeat(32)} x`, 'a'.repeat(129)]) {
    assert.throws(() => originSecretConf([bad]), /ORIGIN_SECRET must be 32 to 128/, bad);
  }
});
