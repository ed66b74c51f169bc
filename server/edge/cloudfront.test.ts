// The CloudFront SDK is loaded only where a distribution is to be purged. The edge purge runs in
// the primary, but the server is one bundle: a module it loads at the top is loaded in every
// worker too, where the SDK's client was about 45,000 objects of heap that every major
// collection marked. Each import is recorded as Node resolves it (module.registerHooks).
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { test } from 'node:test';
import type { EdgePurgeConfig } from '../config';

const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    resolved.push(specifier);
    return nextResolve(specifier, context);
  },
});
const sdk = '@aws-sdk/client-cloudfront';

const settings = (distributionId: string | null): EdgePurgeConfig => ({
  distributionId,
  // Nothing listens on port 9: a call fails at once, after the SDK was loaded for it.
  endpoint: 'http://127.0.0.1:9',
  intervalMs: 1_000,
  maxBackoffMs: 1_000,
  monthlyPaths: 0,
});
// Credentials of its own, so the SDK goes straight to the endpoint rather than looking for some.
process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
process.env.AWS_SECRET_ACCESS_KEY = 'example';

test('loading the edge target, or its dry run, does not load the SDK; a distribution to purge does', async () => {
  const { cloudFrontTarget } = await import('./cloudfront');
  assert.ok(resolved.includes('./cloudfront'), `the hook sees imports: ${resolved.join(', ')}`);
  const dryRun = cloudFrontTarget(settings(null));
  await dryRun.invalidate(['/news/1']);
  dryRun.close();
  assert.ok(!resolved.includes(sdk), `the SDK was loaded: ${resolved.join(', ')}`);

  const live = cloudFrontTarget(settings('E2EXAMPLE'));
  assert.equal(live.live, true);
  await assert.rejects(live.invalidate(['/news/1']));
  live.close();
  assert.ok(resolved.includes(sdk), 'the SDK is loaded for a distribution');
});
