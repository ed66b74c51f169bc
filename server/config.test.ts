import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, edgePurgeActive, loadConfig } from './config';

test('defaults: port 3000, keep-alive above a 60 s proxy keep-alive, frozen', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.siteUrl, 'http://localhost:3000');
  assert.ok(config.keepAliveTimeoutMs > 60_000);
  assert.ok(config.headersTimeoutMs > config.keepAliveTimeoutMs);
  assert.ok(config.webConcurrency >= 1);
  assert.ok(Object.isFrozen(config));
});

test('WEB_CONCURRENCY and PORT are read and validated', () => {
  assert.equal(loadConfig({ WEB_CONCURRENCY: '3' }).webConcurrency, 3);
  assert.throws(() => loadConfig({ WEB_CONCURRENCY: '0' }), ConfigError);
  assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT must be a whole number/);
  assert.throws(() => loadConfig({ PORT: '70000' }), /between 1 and 65535/);
});

test('SITE_URL must be an absolute http(s) URL and loses any path', () => {
  assert.equal(loadConfig({ SITE_URL: 'https://news.example/some/path' }).siteUrl, 'https://news.example');
  assert.throws(() => loadConfig({ SITE_URL: 'news.example' }), ConfigError);
  assert.throws(() => loadConfig({ SITE_URL: 'ftp://news.example' }), ConfigError);
});

test('NODE_ENV outside production/development/test is refused', () => {
  assert.throws(() => loadConfig({ NODE_ENV: 'prod' }), ConfigError);
});

test('the overload limits: crawlers never get less than readers', () => {
  const config = loadConfig({ SSR_QUEUE_LIMIT: '40', CRAWLER_QUEUE_LIMIT: '10' });
  assert.equal(config.ssrQueueLimit, 40);
  assert.equal(config.crawlerQueueLimit, 40);
  assert.throws(() => loadConfig({ SHELL_S_MAXAGE_S: '60' }), /SHELL_S_MAXAGE_S must be between 0 and 10/);
});

test('listening: reuse-port by default, per-worker on loopback; always a fixed port, and a range that fits', () => {
  const reusePort = loadConfig({});
  assert.equal(reusePort.listenMode, 'reuse-port');
  assert.equal(reusePort.host, '');
  // Workers that each bound port 0 would each get a different port; the cluster's shared port is gone.
  assert.throws(() => loadConfig({ PORT: '0' }), /PORT must be between 1 and 65535/);
  assert.throws(() => loadConfig({ LISTEN_MODE: 'shared' }), /LISTEN_MODE must be reuse-port or per-worker/);
  assert.equal(loadConfig({ API_QUEUE_LIMIT: '12' }).apiQueueLimit, 12);
  assert.throws(() => loadConfig({ API_QUEUE_LIMIT: '0' }), /API_QUEUE_LIMIT/);
  const perWorker = loadConfig({ LISTEN_MODE: 'per-worker', PORT: '8080', WEB_CONCURRENCY: '4' });
  assert.equal(perWorker.host, '127.0.0.1');
  assert.equal(loadConfig({ LISTEN_MODE: 'per-worker', HOST: '0.0.0.0' }).host, '0.0.0.0');
  assert.throws(() => loadConfig({ LISTEN_MODE: 'per-worker', PORT: '0' }), /PORT must be between 1/);
  assert.throws(() => loadConfig({ LISTEN_MODE: 'per-worker', PORT: '65535', WEB_CONCURRENCY: '2' }), /past 65535/);
  assert.throws(() => loadConfig({ LISTEN_MODE: 'each' }), ConfigError);
  assert.throws(() => loadConfig({ HOST: 'a b' }), ConfigError);
});

test('a removed setting set to anything but what Kiosk now always does stops the start, naming it', () => {
  for (const [name, value] of [
    ['TRUST_PROXY', 'off'],
    ['SSR_MAX_EVENT_LOOP_DELAY_MS', '100'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: value }),
      (error: Error) => error instanceof ConfigError && error.message.startsWith(`${name} is no longer a setting`),
    );
  }
  // An environment that still carries the old default starts as before.
  assert.doesNotThrow(() => loadConfig({ TRUST_PROXY: 'loopback', SSR_MAX_EVENT_LOOP_DELAY_MS: '0' }));
});

test('CONTENT_API_URL: an absolute http(s) URL without credentials or query, and the newsroom cache bounds', () => {
  const defaults = loadConfig({});
  assert.deepEqual(defaults.content, { store: 'sqlite', path: path.resolve('data/kiosk.sqlite') });
  assert.equal(defaults.contentTimeoutMs, 1_500);
  const config = loadConfig({ CONTENT_API_URL: 'https://newsroom.example/kiosk/api/', CONTENT_TIMEOUT_MS: '800', CONTENT_STALE_S: '600' });
  assert.deepEqual(config.content, { store: 'newsroom-api', url: 'https://newsroom.example/kiosk/api' });
  assert.equal(config.contentTimeoutMs, 800);
  assert.equal(config.contentStaleS, 600);
  for (const bad of ['newsroom.example/api', 'ftp://newsroom.example', 'https://user:pw@newsroom.example/api', 'https://newsroom.example/api?key=1']) {
    assert.throws(() => loadConfig({ CONTENT_API_URL: bad }), /CONTENT_API_URL/, bad);
  }
  assert.throws(() => loadConfig({ CONTENT_TIMEOUT_MS: '0' }), /CONTENT_TIMEOUT_MS must be between/);
  assert.throws(() => loadConfig({ CONTENT_CACHE_MB: '0' }), /CONTENT_CACHE_MB/);
});

test('ingestion and preview need the SQLite store: with CONTENT_API_URL they refuse to start', () => {
  const api = { CONTENT_API_URL: 'http://127.0.0.1:3001/api' };
  const secret = 'x'.repeat(32);
  assert.throws(() => loadConfig({ ...api, INGEST_TOKEN: secret }), /INGEST_TOKEN and CONTENT_API_URL are both set/);
  assert.throws(() => loadConfig({ ...api, PREVIEW_SECRET: secret }), /PREVIEW_SECRET and CONTENT_API_URL are both set/);
  assert.equal(loadConfig({ ...api, INGEST_TOKEN: secret, INGEST_ENABLED: 'false' }).ingestToken, null);
});

test('SEED_DEMO_CONTENT: off unless asked, a flag, and refused beside CONTENT_API_URL', () => {
  assert.equal(loadConfig({}).seedDemoContent, false);
  assert.equal(loadConfig({ NODE_ENV: 'production' }).seedDemoContent, false);
  assert.equal(loadConfig({ SEED_DEMO_CONTENT: 'true' }).seedDemoContent, true);
  assert.equal(loadConfig({ SEED_DEMO_CONTENT: 'false' }).seedDemoContent, false);
  assert.throws(() => loadConfig({ SEED_DEMO_CONTENT: 'please' }), /SEED_DEMO_CONTENT must be true or false/);
  assert.throws(() => loadConfig({ SEED_DEMO_CONTENT: 'true', CONTENT_API_URL: 'http://127.0.0.1:3001/api' }), /SEED_DEMO_CONTENT=true and CONTENT_API_URL/);
});

test('metrics: CloudWatch off unless METRICS_CLOUDWATCH=1, /metrics off unless METRICS_PORT', () => {
  const off = loadConfig({});
  assert.equal(off.metrics.cloudwatch, null);
  assert.equal(off.metrics.port, 0);
  assert.equal(off.metrics.namespace, 'Kiosk');
  assert.equal(off.metrics.environment, 'development');
  assert.equal(loadConfig({ NODE_ENV: 'production' }).metrics.environment, 'production');
  assert.ok(Object.isFrozen(off.metrics));

  const on = loadConfig({ METRICS_CLOUDWATCH: '1', AWS_REGION: 'eu-west-1', KIOSK_ENV: 'staging', METRICS_PORT: '9464' });
  assert.deepEqual(
    { ...on.metrics.cloudwatch },
    {
      region: 'eu-west-1',
      endpoint: null,
      flushIntervalS: 60,
      storageResolutionS: 60,
      bufferMaxDatums: 5_000,
      timeoutMs: 5_000,
      instanceMetadataEndpoint: undefined,
      instanceMetadataDisabled: false,
    },
  );
  assert.ok(Object.isFrozen(on.metrics.cloudwatch));
  assert.equal(on.metrics.environment, 'staging');
  assert.equal(on.metrics.port, 9464);
});

test('metrics: the endpoint override, high resolution, and refusals that name the variable', () => {
  const base = { METRICS_CLOUDWATCH: '1', AWS_REGION: 'eu-west-1' };
  const config = loadConfig({ ...base, AWS_ENDPOINT_URL: 'http://127.0.0.1:5000', METRICS_STORAGE_RESOLUTION_S: '1', METRICS_FLUSH_S: '10' });
  assert.equal(config.metrics.cloudwatch?.endpoint, 'http://127.0.0.1:5000');
  assert.equal(config.metrics.cloudwatch?.storageResolutionS, 1);
  assert.equal(loadConfig({ ...base, AWS_ENDPOINT_URL: 'http://a:1', AWS_ENDPOINT_URL_CLOUDWATCH: 'http://b:2' }).metrics.cloudwatch?.endpoint, 'http://b:2');
  assert.throws(() => loadConfig({ METRICS_CLOUDWATCH: '1' }), /needs AWS_REGION/);
  assert.throws(() => loadConfig({ METRICS_CLOUDWATCH: 'maybe' }), /METRICS_CLOUDWATCH must be true or false/);
  assert.throws(() => loadConfig({ ...base, METRICS_STORAGE_RESOLUTION_S: '10' }), /must be 1 or 60/);
  assert.throws(() => loadConfig({ ...base, AWS_ENDPOINT_URL_CLOUDWATCH: 'localhost:5000' }), /AWS_ENDPOINT_URL_CLOUDWATCH must be an http\(s\) URL/);
  assert.throws(() => loadConfig({ METRICS_NAMESPACE: 'AWS/EC2' }), /METRICS_NAMESPACE/);
  assert.throws(() => loadConfig({ KIOSK_ENV: 'prod env' }), /KIOSK_ENV/);
  assert.throws(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' }), /METRICS_PORT must differ from PORT/);
});

test('CONTENT_DATABASE_URL: postgres:// with a host and a database, never echoed; the pool size; not with CONTENT_API_URL', () => {
  assert.equal(loadConfig({}).content.store, 'sqlite');
  assert.deepEqual(loadConfig({ CONTENT_DATABASE_URL: 'postgres://kiosk@db.internal/kiosk' }).content, {
    store: 'postgresql',
    url: 'postgres://kiosk@db.internal/kiosk',
    poolSize: 4,
  });
  const url = 'postgres://kiosk:s3cret@db.internal:5432/kiosk?sslmode=verify-full';
  const config = loadConfig({ CONTENT_DATABASE_URL: url, CONTENT_DB_POOL_SIZE: '2', INGEST_TOKEN: 'x'.repeat(32), PREVIEW_SECRET: 'y'.repeat(32) });
  assert.deepEqual(config.content, { store: 'postgresql', url, poolSize: 2 });
  assert.ok(config.ingestToken !== null && config.previewSecret !== null, 'ingestion and preview work on PostgreSQL');
  for (const bad of ['http://db.internal/kiosk', 'postgres://db.internal', 'postgres://:s3cret@/kiosk', 'not a url s3cret']) {
    assert.throws(
      () => loadConfig({ CONTENT_DATABASE_URL: bad }),
      (error: Error) => error instanceof ConfigError && !error.message.includes('s3cret'),
      bad,
    );
  }
  assert.throws(() => loadConfig({ CONTENT_DB_POOL_SIZE: '0' }), /CONTENT_DB_POOL_SIZE/);
  assert.throws(() => loadConfig({ CONTENT_DATABASE_URL: url, CONTENT_API_URL: 'http://127.0.0.1:3001/api' }), /both set/);
});

test('the demo seed at start fills SQLite only: refused beside PostgreSQL, with the command that seeds it', () => {
  assert.throws(
    () => loadConfig({ SEED_DEMO_CONTENT: 'true', CONTENT_DATABASE_URL: 'postgres://kiosk@127.0.0.1:5432/kiosk' }),
    /npm run seed -- --database-url/,
  );
});

test('edge purge: a dry run without a distribution id; long edge lifetimes only with one and a store that has a change feed', () => {
  const dry = loadConfig({});
  assert.deepEqual(dry.edgePurge, { distributionId: null, intervalMs: 1_000, maxBackoffMs: 30_000, monthlyPaths: 300_000, endpoint: null });
  assert.equal(edgePurgeActive(dry), false);
  const live = loadConfig({ CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL', EDGE_PURGE_INTERVAL_MS: '5000' });
  assert.equal(live.edgePurge.distributionId, 'E2QWRUHAPOMQZL');
  assert.equal(live.edgePurge.intervalMs, 5_000);
  assert.equal(edgePurgeActive(live), true);
  assert.equal(
    edgePurgeActive(loadConfig({ CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL', CONTENT_DATABASE_URL: 'postgres://kiosk@127.0.0.1:5432/kiosk' })),
    true,
  );
  // The newsroom API has no feed to purge by.
  assert.equal(edgePurgeActive(loadConfig({ CLOUDFRONT_DISTRIBUTION_ID: 'E2QWRUHAPOMQZL', CONTENT_API_URL: 'http://127.0.0.1:3001/api' })), false);
  for (const bad of ['e2qwruhapomqzl', 'E2QW RUHA', 'arn:aws:cloudfront::1:distribution/E2']) {
    assert.throws(() => loadConfig({ CLOUDFRONT_DISTRIBUTION_ID: bad }), /CLOUDFRONT_DISTRIBUTION_ID must be a distribution id/, bad);
  }
  assert.throws(() => loadConfig({ EDGE_PURGE_INTERVAL_MS: '10' }), /EDGE_PURGE_INTERVAL_MS/);
  // The purge budget: 0 is unlimited; below CloudFront's free 1,000 paths a month, refused.
  assert.equal(loadConfig({ EDGE_PURGE_MONTHLY_PATHS: '0' }).edgePurge.monthlyPaths, 0);
  assert.equal(loadConfig({ EDGE_PURGE_MONTHLY_PATHS: '2000000' }).edgePurge.monthlyPaths, 2_000_000);
  for (const bad of ['500', '-1', 'lots', '1e6']) {
    assert.throws(() => loadConfig({ EDGE_PURGE_MONTHLY_PATHS: bad }), /EDGE_PURGE_MONTHLY_PATHS must be/, bad);
  }
  assert.throws(() => loadConfig({ AWS_ENDPOINT_URL_CLOUDFRONT: 'ftp://x' }), /AWS_ENDPOINT_URL_CLOUDFRONT/);
});

test('last good copies: off without LAST_GOOD_DIR; a directory of its own that Nginx can name; the bounds', () => {
  const off = loadConfig({});
  assert.deepEqual([off.lastGoodDir, off.lastGoodSeconds, off.lastGoodMaxCopies], [null, 600, 20_000]);
  const on = loadConfig({ LAST_GOOD_DIR: '/var/lib/kiosk/last-good', LAST_GOOD_SECONDS: '0', LAST_GOOD_MAX_COPIES: '3' });
  assert.deepEqual([on.lastGoodDir, on.lastGoodSeconds, on.lastGoodMaxCopies], ['/var/lib/kiosk/last-good', 0, 3]);
  for (const bad of ['relative/dir', '/', '/tmp', '/var/../tmp', '/var/lib/with space', '/var/lib/semi;colon', '/var/lib/{brace}']) {
    assert.throws(
      () => loadConfig({ LAST_GOOD_DIR: bad }),
      (error: unknown) => error instanceof ConfigError && /LAST_GOOD_DIR/.test(error.message),
      bad,
    );
  }
  assert.throws(() => loadConfig({ LAST_GOOD_SECONDS: '-1' }), /LAST_GOOD_SECONDS/);
  assert.throws(() => loadConfig({ LAST_GOOD_MAX_COPIES: '0' }), /LAST_GOOD_MAX_COPIES/);
});
