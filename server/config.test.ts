import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './config';

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
  assert.throws(() => loadConfig({ PORT: '70000' }), /between 0 and 65535/);
});

test('SITE_URL must be an absolute http(s) URL and loses any path', () => {
  assert.equal(loadConfig({ SITE_URL: 'https://news.example/some/path' }).siteUrl, 'https://news.example');
  assert.throws(() => loadConfig({ SITE_URL: 'news.example' }), ConfigError);
  assert.throws(() => loadConfig({ SITE_URL: 'ftp://news.example' }), ConfigError);
});

test('NODE_ENV outside production/development/test is refused', () => {
  assert.throws(() => loadConfig({ NODE_ENV: 'prod' }), ConfigError);
});

test('the cluster shares the port round-robin unless told none; a bad value is refused', () => {
  assert.equal(loadConfig({}).clusterScheduling, 'rr');
  assert.equal(loadConfig({ CLUSTER_SCHEDULING: 'none' }).clusterScheduling, 'none');
  assert.throws(() => loadConfig({ CLUSTER_SCHEDULING: 'roundrobin' }), ConfigError);
});

test('the overload limits: crawlers never get less than readers', () => {
  const config = loadConfig({ SSR_QUEUE_LIMIT: '40', CRAWLER_QUEUE_LIMIT: '10' });
  assert.equal(config.ssrQueueLimit, 40);
  assert.equal(config.crawlerQueueLimit, 40);
  assert.throws(() => loadConfig({ SHELL_S_MAXAGE_S: '60' }), /SHELL_S_MAXAGE_S must be between 0 and 10/);
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
  assert.throws(() => loadConfig({ METRICS_CLOUDWATCH: 'yes' }), /METRICS_CLOUDWATCH must be 1 or 0/);
  assert.throws(() => loadConfig({ ...base, METRICS_STORAGE_RESOLUTION_S: '10' }), /must be 1 or 60/);
  assert.throws(() => loadConfig({ ...base, AWS_ENDPOINT_URL_CLOUDWATCH: 'localhost:5000' }), /AWS_ENDPOINT_URL_CLOUDWATCH must be an http\(s\) URL/);
  assert.throws(() => loadConfig({ METRICS_NAMESPACE: 'AWS/EC2' }), /METRICS_NAMESPACE/);
  assert.throws(() => loadConfig({ KIOSK_ENV: 'prod env' }), /KIOSK_ENV/);
  assert.throws(() => loadConfig({ PORT: '3000', METRICS_PORT: '3000' }), /METRICS_PORT must differ from PORT/);
});
