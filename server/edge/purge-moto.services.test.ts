// The purge sender against moto's CloudFront (test/moto.ts): CreateInvalidation recorded with the
// right "#tag" items, one call for the changes of one interval, a failed call retried with what
// came meanwhile, a wrong distribution counted as failures with a growing lag, and a burst of
// pushes past the purge budget sent in fewer paths that still cover every change. moto keeps
// each invalidation's paths as they were sent ("#a:…" included) and reports it COMPLETED at once.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { GetInvalidationCommand, ListInvalidationsCommand, type CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { motoDistribution, startMoto, type Moto } from '../../test/moto';
import { loadConfig } from '../config';
import type { ArticleChange } from '../content/changes';
import { monthS, PurgeBudget } from './budget';
import { cloudFrontTarget } from './cloudfront';
import { PurgeSender } from './purge';
import { purgeItems } from './tags';

let moto: Moto;
let client: CloudFrontClient;
let distributionId: string;
const saved = { ...process.env };

before(async () => {
  moto = await startMoto();
  // The SDK reads its credentials from the environment, as on an instance without a role.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: moto.env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: moto.env.AWS_SECRET_ACCESS_KEY,
    AWS_EC2_METADATA_DISABLED: 'true',
  });
  ({ client, distributionId } = await motoDistribution(moto, 'purge-test'));
});

after(async () => {
  client?.destroy();
  await moto?.stop();
  process.env = saved;
});

function settings(env: Record<string, string>) {
  return loadConfig({ CLOUDFRONT_DISTRIBUTION_ID: distributionId, AWS_ENDPOINT_URL_CLOUDFRONT: moto.endpoint, EDGE_PURGE_INTERVAL_MS: '300', ...env })
    .edgePurge;
}

async function invalidations(): Promise<string[][]> {
  const listed = await client.send(new ListInvalidationsCommand({ DistributionId: distributionId }));
  const ids = (listed.InvalidationList?.Items ?? []).map((item) => item.Id!);
  const batches: string[][] = [];
  for (const Id of ids) {
    const { Invalidation } = await client.send(new GetInvalidationCommand({ DistributionId: distributionId, Id }));
    batches.push([...(Invalidation!.InvalidationBatch!.Paths!.Items ?? [])].sort());
  }
  return batches;
}

async function until(check: () => boolean | Promise<boolean>, withinMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > withinMs) assert.fail(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const unpublish: ArticleChange = {
  kind: 'article',
  id: '202611222000000001',
  was: { section: 'news', tags: ['climate'], status: 'published' },
  now: { section: 'news', tags: ['climate'], status: 'draft' },
};
const correction: ArticleChange = {
  kind: 'article',
  id: '202611222000000002',
  was: { section: 'world', tags: ['energy'], status: 'published' },
  now: { section: 'world', tags: ['energy'], status: 'published' },
};

test('the changes of one interval reach CloudFront as one CreateInvalidation with their "#tag" items', async () => {
  const before = (await invalidations()).length;
  const target = cloudFrontTarget(settings({}));
  const sender = new PurgeSender({ invalidate: target.invalidate, intervalMs: 300, maxBackoffMs: 2_000 });
  try {
    assert.equal(target.live, true);
    sender.change(unpublish);
    sender.change(correction);
    await until(() => sender.tagsSent > 0, 10_000, 'the call');
    const batches = (await invalidations()).slice(before);
    assert.equal(batches.length, 1, 'one call for both changes');
    assert.deepEqual(
      batches[0],
      ['#a:202611222000000001', '#a:202611222000000002', '#front', '#l:all', '#s:news', '#s:world', '#t:climate', '#t:energy'].sort(),
    );
    assert.equal(sender.failures, 0);
    assert.equal(sender.lagS(), 0);
  } finally {
    sender.close();
    target.close();
  }
});

test('a failed call is retried after a back-off, with the changes that came meanwhile in the same call', async () => {
  const before = (await invalidations()).length;
  // In front of moto: the first request fails as CloudFront does when it is unavailable.
  let refuse = 1;
  let requests = 0;
  const proxy = http.createServer((req, res) => {
    requests += 1;
    if (refuse > 0) {
      refuse -= 1;
      req.resume();
      res.writeHead(503, { 'Content-Type': 'text/xml' });
      res.end('<ErrorResponse><Error><Type>Receiver</Type><Code>ServiceUnavailable</Code><Message>try again</Message></Error></ErrorResponse>');
      return;
    }
    const upstream = http.request(new URL(req.url!, moto.endpoint), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const target = cloudFrontTarget(settings({ AWS_ENDPOINT_URL_CLOUDFRONT: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }));
  const sender = new PurgeSender({ invalidate: target.invalidate, intervalMs: 100, maxBackoffMs: 2_000 });
  try {
    sender.change(unpublish);
    await until(() => sender.failures === 1, 10_000, 'the failed call');
    assert.equal((await invalidations()).length, before, 'nothing recorded by the failed call');
    assert.ok(sender.lagS() > 0, 'the change is not covered yet');
    sender.change(correction);
    await until(() => sender.tagsSent > 0, 10_000, 'the retry');
    assert.equal(requests, 2, 'the SDK itself does not retry: one failed call, one retry');
    const batches = (await invalidations()).slice(before);
    assert.equal(batches.length, 1);
    assert.ok(batches[0]!.includes('#a:202611222000000001') && batches[0]!.includes('#a:202611222000000002'), batches[0]!.join(','));
    assert.equal(sender.lagS(), 0);
  } finally {
    sender.close();
    target.close();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  }
});

test('a distribution CloudFront does not know: every call fails, is counted, and the lag grows', async () => {
  const target = cloudFrontTarget(settings({ CLOUDFRONT_DISTRIBUTION_ID: 'EDOESNOTEXIST1' }));
  const sender = new PurgeSender({ invalidate: target.invalidate, intervalMs: 50, maxBackoffMs: 1_000 });
  try {
    sender.change(unpublish);
    await until(() => sender.failures >= 2, 10_000, 'two failed calls');
    assert.equal(sender.tagsSent, 0);
    assert.ok(sender.lagS() >= 0.4, `lag ${sender.lagS()} s`);
    assert.deepEqual(sender.pending().sort(), ['#a:202611222000000001', '#front', '#l:all', '#s:news', '#t:climate'].sort());
  } finally {
    sender.close();
    target.close();
  }
});

test('without a distribution, a dry run: nothing reaches CloudFront', async () => {
  const before = (await invalidations()).length;
  const target = cloudFrontTarget(loadConfig({ AWS_ENDPOINT_URL_CLOUDFRONT: moto.endpoint }).edgePurge);
  const sender = new PurgeSender({ invalidate: target.invalidate, intervalMs: 50, maxBackoffMs: 1_000 });
  try {
    assert.equal(target.live, false);
    sender.change(unpublish);
    await until(() => sender.lagS() === 0 && sender.pending().length === 0, 5_000, 'the dry run');
    assert.equal((await invalidations()).length, before);
  } finally {
    sender.close();
    target.close();
  }
});

test('a burst of pushes past the purge budget: held and gathered into fewer paths, every change still covered, the budget never passed', async (t) => {
  const before = (await invalidations()).length;
  const env = settings({ EDGE_PURGE_MONTHLY_PATHS: '21900' });
  assert.equal(env.monthlyPaths, 21_900);
  // The bucket's clock is the test's: an hour of 21,900 paths a month is a burst of 30.
  let clock = 0;
  const budget = new PurgeBudget(env.monthlyPaths, () => clock);
  const target = cloudFrontTarget(env);
  const sender = new PurgeSender({ invalidate: target.invalidate, intervalMs: 50, maxBackoffMs: 2_000, budget });
  const sections = ['news', 'world', 'sport'] as const;
  const tags = ['climate', 'energy', 'elections', 'football'];
  const pushes: ArticleChange[] = Array.from({ length: 24 }, (_, i) => {
    // New stories: a correction would not be held (purge.test.ts).
    const state = { section: sections[i % 3]!, tags: [tags[i % 4]!, tags[(i + 1) % 4]!], status: 'published' as const };
    return { kind: 'article', id: `2026112220000001${String(i).padStart(2, '0')}`, was: null, now: state };
  });
  try {
    for (const push of pushes) {
      sender.change(push);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    // The burst is spent within the first pushes; the rest wait, gathered into one batch.
    await until(async () => (await invalidations()).length > before && sender.budgetLeft()! < 7, 10_000, 'the burst spent');
    const whileHeld = (await invalidations()).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await invalidations()).length, whileHeld, 'nothing more is sent while the budget cannot pay for it');
    assert.ok(sender.pending().length > 7, `held: ${sender.pending().length} paths`);
    const held = sender.pending().length;
    // The month moves on by what the held batch costs.
    clock += Math.ceil((held * monthS * 1000) / env.monthlyPaths) + 1;
    await until(() => sender.pending().length === 0 && sender.lagS() === 0, 10_000, 'the held batch');
    const batches = (await invalidations()).slice(before);
    const sent = batches.flat();
    const onePerPush = pushes.reduce((sum, push) => sum + purgeItems(push).length, 0);
    t.diagnostic(`${sent.length} paths in ${batches.length} calls (the held one ${held}), against ${onePerPush} with one call a push`);
    assert.ok(sent.length < onePerPush / 2, `${sent.length} paths in ${batches.length} calls, against ${onePerPush} with one call a push`);
    assert.ok(sent.length <= 30 + held, `never past the budget: ${sent.length} paths`);
    assert.ok(!sent.includes('/*'), 'every change went out by its own tags');
    for (const push of pushes) {
      for (const item of purgeItems(push)) assert.ok(sent.includes(item), `${item} of ${push.id} was sent`);
    }
    const last = batches.find((batch) => batch.includes(`#a:${pushes.at(-1)!.id}`))!;
    assert.equal(last.length, held, 'the held batch went out whole, in one call');
    assert.equal(sender.failures, 0);
  } finally {
    sender.close();
    target.close();
  }
});
