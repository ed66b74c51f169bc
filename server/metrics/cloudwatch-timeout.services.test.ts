// The real SDK call (cloudWatchSender) to an endpoint that accepts the connection and never
// answers: the publisher gives the call up at its timeout, keeps the data for the next flush and
// says so once. cloudwatch.test.ts tests the publisher with a send function of its own; this is
// the SDK's side of the same timeout, over a real socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
// Loaded here first: cloudWatchSender loads the SDK on first use, inside the first call's timeout.
import '@aws-sdk/client-cloudwatch';
import type { CloudWatchConfig } from '../config';
import { startBlackHole } from '../../test/black-hole';
import { collectingLog } from '../../test/log';
import { withCeiling } from '../../test/wait';
import { CloudWatchPublisher, cloudWatchSender } from './cloudwatch';

test('PutMetricData to an endpoint that never answers: given up at the timeout, the data kept, one log line', { timeout: 60_000 }, async () => {
  // The SDK signs the request, so it needs credentials, and must not look for an instance role.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_EC2_METADATA_DISABLED: 'true' });
  const hole = await startBlackHole();
  const { lines, log } = collectingLog();
  const config: CloudWatchConfig = {
    region: 'eu-west-1',
    endpoint: hole.url,
    flushIntervalS: 60,
    storageResolutionS: 60,
    bufferMaxDatums: 100,
    timeoutMs: 2_000,
    instanceMetadataEndpoint: undefined,
    instanceMetadataDisabled: true,
  };
  const publisher = new CloudWatchPublisher({
    send: cloudWatchSender(config, 'KioskTest'),
    dimensionSets: [[{ Name: 'Environment', Value: 'test' }]],
    collect: () => [{ name: 'Requests', unit: 'Count', value: 1 }],
    flushIntervalS: config.flushIntervalS,
    storageResolutionS: config.storageResolutionS,
    bufferMaxDatums: config.bufferMaxDatums,
    timeoutMs: config.timeoutMs,
    log,
  });
  try {
    await withCeiling('a flush to an endpoint that never answers', publisher.flush());
    assert.ok(hole.connections() > 0, 'the SDK did send');
    assert.equal(publisher.sent, 0);
    assert.equal(publisher.buffered, 2, 'Requests and MetricsDropped kept for the next flush');
    await withCeiling('the next flush', publisher.flush());
    assert.equal(publisher.buffered, 4);
    const failures = lines.filter((l) => l.message === 'sending metrics to CloudWatch failed; keeping them for the next flush');
    assert.equal(failures.length, 1, 'said once, not once a flush');
  } finally {
    await hole.close();
  }
});
