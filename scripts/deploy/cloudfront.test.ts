// CloudFront's behaviours against their rendering from the route table (scripts/deploy/cloudfront.ts)
// and what the origin says (server/cache-policy.ts). cfn-lint checks the same resources against
// CloudFormation's schemas in cfn-lint.services.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { cacheControl, purgedCacheControl } from '../../server/cache-policy';
import { cacheTagHeaderName } from '../../server/edge/tags';
import { apiBase, apiPath } from '../../src/api-paths';
import { route, routeOf, routeTable, type Route } from '../../src/request-kinds';
import { ebConfigPath } from '../nginx/render';
import { apiCacheKeyQueryStrings, cacheBehaviours, cacheTagConfig, managed, type Behavior } from './cloudfront';
import { loadConfigFiles, optionSettings, resolveOptionSettings, resources, settingValue } from './ebextensions';

interface CachePolicyConfig {
  MinTTL: number;
  DefaultTTL: number;
  MaxTTL: number;
  ParametersInCacheKeyAndForwardedToOrigin: {
    EnableAcceptEncodingGzip: boolean;
    EnableAcceptEncodingBrotli: boolean;
    HeadersConfig: { HeaderBehavior: string };
    CookiesConfig: { CookieBehavior: string };
    QueryStringsConfig: { QueryStringBehavior: string; QueryStrings?: string[] };
  };
}

/** What Elastic Beanstalk's own template declares (and CloudFormation's pseudo parameters), so the resources may refer to it. */
const ebProvided = new Set(['AWSEBV2LoadBalancer', 'AWSEBEnvironmentName', 'AWS::AccountId']);

const files = loadConfigFiles();
const all = resources(files);
const distribution = all.KioskDistribution?.Properties?.DistributionConfig as {
  Origins: { Id: string; DomainName: unknown; CustomOriginConfig: Record<string, unknown>; OriginShield?: { Enabled: boolean; OriginShieldRegion: unknown } }[];
  DefaultCacheBehavior: Behavior;
  CacheBehaviors: Behavior[];
  CustomErrorResponses: { ErrorCode: number; ErrorCachingMinTTL: number; ResponsePagePath?: string }[];
  ViewerCertificate: Record<string, unknown>;
  CacheTagConfig?: { HeaderName: string };
};

function policyOf(behavior: Behavior): CachePolicyConfig | string {
  const id = behavior.CachePolicyId;
  if (typeof id === 'string') return id;
  const name = (id as { Ref: string }).Ref;
  return all[name]?.Properties?.CachePolicyConfig as CachePolicyConfig;
}

function behavior(pattern: string): Behavior {
  const found = distribution.CacheBehaviors.find((b) => b.PathPattern === pattern);
  assert.ok(found, `no behaviour for ${pattern}`);
  return found;
}

function directive(header: string, name: string): number {
  const match = new RegExp(`(?:^|,\\s*)${name}=(\\d+)`).exec(header);
  assert.ok(match, `${name} in "${header}"`);
  return Number(match[1]);
}

test('pages: the origin decides how long, the query string is not in the key, stale copies can outlive an outage', () => {
  const pages = policyOf(distribution.DefaultCacheBehavior) as CachePolicyConfig;
  assert.equal(typeof pages, 'object');
  // 0 minimum: private, no-store answers (5xx, preview) are never kept.
  assert.equal(pages.MinTTL, 0);
  assert.equal(pages.DefaultTTL, 0);
  for (const header of [cacheControl.front, cacheControl.section, cacheControl.article, ...Object.values(purgedCacheControl)]) {
    const sMaxAge = directive(header, 's-maxage');
    assert.ok(sMaxAge > 0 && sMaxAge <= pages.MaxTTL, `s-maxage ${sMaxAge} within the behaviour's MaxTTL`);
    assert.ok(pages.MaxTTL >= directive(header, 'stale-if-error'), 'MaxTTL must not cut the stale-if-error window');
  }
  const key = pages.ParametersInCacheKeyAndForwardedToOrigin;
  assert.equal(key.QueryStringsConfig.QueryStringBehavior, 'none');
  assert.equal(key.CookiesConfig.CookieBehavior, 'none');
  assert.equal(key.HeadersConfig.HeaderBehavior, 'none');
  assert.equal(key.EnableAcceptEncodingGzip, true);
  assert.equal(key.EnableAcceptEncodingBrotli, true);
  assert.equal(distribution.DefaultCacheBehavior.Compress, true);
  assert.deepEqual(distribution.DefaultCacheBehavior.AllowedMethods, ['GET', 'HEAD']);
});

test('the cache behaviours are exactly their rendering from the route table', () => {
  assert.deepEqual(distribution.CacheBehaviors, cacheBehaviours());
});

test('the API: only the query parameters the API reads are in its cache key', () => {
  const api = policyOf(behavior(`${apiBase}/*`)) as CachePolicyConfig;
  assert.deepEqual(api.ParametersInCacheKeyAndForwardedToOrigin.QueryStringsConfig, apiCacheKeyQueryStrings());
  assert.equal(api.MinTTL, 0);
});

/** The behaviour CloudFront picks for a path: the first pattern that matches, else the default. */
function behaviourFor(urlPath: string): Behavior {
  const matches = (pattern: string) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(urlPath);
  return distribution.CacheBehaviors.find((b) => matches(b.PathPattern!)) ?? distribution.DefaultCacheBehavior;
}

// A path of each entry, as a reader's browser or the CMS asks for it.
const id = '202611221600000001';
const samples: Record<string, string> = {
  health: route('health').exact!,
  assets: `${route('assets').prefix!}main.0123456789.js`,
  favicon: `${route('favicon').prefix!}svg`,
  media: `${route('media').prefix!}${id}.svg`,
  preview: `${route('preview').prefix!}${id}`,
  newsletter: route('newsletter').exact!,
  metrics: route('metrics').prefix!,
  ingest: `${route('ingest').prefix!}articles/${id}`,
  views: `${apiBase}/${apiPath.view(id)}`,
  api_root: apiBase,
  api: `${apiBase}/${apiPath.article(id)}`,
  pages: `/news/${id}`,
};

test('CloudFront lets through, uncached, every method each entry of the table answers, and caches only reads', () => {
  for (const entry of routeTable as readonly Route[]) {
    const urlPath = samples[entry.name];
    assert.ok(urlPath, `a sample path for ${entry.name}`);
    assert.equal(routeOf(urlPath).name, entry.name, urlPath);
    const chosen = behaviourFor(urlPath);
    for (const method of entry.methods) assert.ok(chosen.AllowedMethods.includes(method), `${urlPath} (${chosen.PathPattern ?? 'default'}) allows ${method}`);
    if (entry.methods.some((m) => m !== 'GET' && m !== 'HEAD')) {
      assert.equal(chosen.CachePolicyId, managed.CachingDisabled, `${urlPath} is never cached`);
      assert.equal(chosen.OriginRequestPolicyId, managed.AllViewerExceptHostHeader, `${urlPath} gets the request's headers`);
    }
  }
  // Pages and the rest of the API stay GET/HEAD and cached.
  assert.equal(behaviourFor(samples.pages!).PathPattern, undefined);
  assert.equal(behaviourFor(samples.api!).PathPattern, `${apiBase}/*`);
});

test('assets and media are cached long; preview, ingest and metrics never', () => {
  for (const name of ['assets', 'media']) {
    const chosen = behaviourFor(samples[name]!);
    assert.equal(chosen.CachePolicyId, managed.CachingOptimized, name);
    assert.equal(chosen.Compress, true);
  }
  assert.equal(cacheControl.assets, 'public, max-age=31536000, immutable');
  for (const name of ['preview', 'ingest', 'metrics']) assert.equal(behaviourFor(samples[name]!).CachePolicyId, managed.CachingDisabled, name);
  // Signed links and the CMS's credentials reach the origin whole.
  for (const name of ['preview', 'ingest']) assert.equal(behaviourFor(samples[name]!).OriginRequestPolicyId, managed.AllViewerExceptHostHeader, name);
  assert.equal(behaviourFor(samples.ingest!).ViewerProtocolPolicy, 'https-only');
});

test('/metrics never leaves the edge: a viewer-request function answers 404, as Nginx would', () => {
  const nginx = fs.readFileSync(ebConfigPath, 'utf8');
  assert.match(nginx, /location \/metrics \{\s*return 404;/);
  const [association] = behavior('/metrics*').FunctionAssociations ?? [];
  assert.equal(association?.EventType, 'viewer-request');
  const fnName = (association!.FunctionARN as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const fn = all[fnName]!.Properties as { FunctionCode: string; FunctionConfig: { Runtime: string }; AutoPublish: boolean };
  assert.equal(fn.FunctionConfig.Runtime, 'cloudfront-js-2.0');
  assert.equal(fn.AutoPublish, true);
  // The function's own code, run on a CloudFront viewer-request event.
  const handler = new Function(`${fn.FunctionCode}\nreturn handler;`)() as (event: unknown) => {
    statusCode: number;
    headers: Record<string, { value: string }>;
  };
  const answer = handler({ version: '1.0', request: { method: 'GET', uri: '/metrics', headers: {}, querystring: {} } });
  assert.equal(answer.statusCode, 404);
  assert.equal(answer.headers['cache-control']?.value, 'private, no-store');
});

test('every request reaches the load balancer over HTTP and readers over HTTPS', () => {
  const [origin] = distribution.Origins;
  assert.equal(distribution.Origins.length, 1);
  assert.deepEqual(origin!.DomainName, { 'Fn::GetAtt': ['AWSEBV2LoadBalancer', 'DNSName'] });
  // AWSEBV2LoadBalancer exists only for an application or network load balancer.
  assert.equal(settingValue(optionSettings(files), 'aws:elasticbeanstalk:environment', 'LoadBalancerType'), 'application');
  assert.equal(origin!.CustomOriginConfig.OriginProtocolPolicy, 'http-only');
  for (const b of [distribution.DefaultCacheBehavior, ...distribution.CacheBehaviors]) {
    assert.equal(b.TargetOriginId, origin!.Id);
    assert.match(b.ViewerProtocolPolicy, /^(redirect-to-https|https-only)$/, b.PathPattern ?? 'default');
  }
});

test('errors are kept at the edge only as long as the origin means: the request’s own faults never, 404 as the not-found page says, 5xx briefly', () => {
  const ttl = new Map(distribution.CustomErrorResponses.map((r) => [r.ErrorCode, r.ErrorCachingMinTTL]));
  for (const response of distribution.CustomErrorResponses) {
    assert.equal(response.ResponsePagePath, undefined, 'the origin error page itself, not a replacement');
  }
  // CloudFront ignores an origin's no-store on these and keeps them for ErrorCachingMinTTL,
  // 10 s when unset, under a key without the headers that may have caused them.
  for (const code of [400, 403, 405, 414]) assert.equal(ttl.get(code), 0, `${code} is never kept`);
  // A 404 depends on the path alone; no longer than the not-found page's own lifetime.
  assert.equal(ttl.get(404), directive(cacheControl.notFound, 's-maxage'));
  for (const code of [500, 502, 503, 504]) {
    const seconds = ttl.get(code);
    assert.ok(seconds !== undefined && seconds > 0 && seconds <= 10, `${code}: ${seconds} s`);
  }
});

test('every reference resolves to a resource declared here or one Elastic Beanstalk provides', () => {
  const declared = new Set(Object.keys(all));
  const refs: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    for (const [key, child] of Object.entries(node)) {
      if (key === 'Ref') refs.push(String(child));
      else if (key === 'Fn::GetAtt') refs.push(String((child as string[])[0]));
      else walk(child);
    }
  };
  walk(all);
  assert.ok(refs.length > 5);
  for (const ref of refs) assert.ok(declared.has(ref) || ebProvided.has(ref), `${ref} is neither declared nor provided by Elastic Beanstalk`);
  // Names are unique per account: each environment's carry its own name (the other resources
  // get generated names).
  const named = new Set(['AWS::CloudFront::CachePolicy', 'AWS::CloudFront::OriginRequestPolicy', 'AWS::CloudFront::Function']);
  for (const [name, resource] of Object.entries(all)) {
    if (!named.has(resource.Type)) continue;
    assert.match(JSON.stringify(resource.Properties), /AWSEBEnvironmentName/, `${name}'s name does not include the environment's`);
  }
});

test("the distribution's CacheTagConfig names the header the origin writes its cache tags in", () => {
  assert.deepEqual(distribution.CacheTagConfig, cacheTagConfig());
  assert.equal(distribution.CacheTagConfig?.HeaderName, cacheTagHeaderName);
});

test('the origin is behind Origin Shield, in the region docs/deploy.md creates the environment in unless the option names another', () => {
  const [origin] = distribution.Origins;
  assert.equal(origin!.OriginShield?.Enabled, true);
  const region = resolveOptionSettings(origin!.OriginShield!.OriginShieldRegion, []);
  assert.match(String(region), /^[a-z]{2}-[a-z]+-\d$/, 'a region code, as CloudFront takes it');
  const deployRegion = /eb init kiosk .*--region ([a-z]{2}-[a-z]+-\d)/.exec(fs.readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8'))?.[1];
  assert.equal(region, deployRegion);
  const other = resolveOptionSettings(origin!.OriginShield!.OriginShieldRegion, [
    { file: 'x.config', namespace: 'aws:elasticbeanstalk:customoption', option: 'OriginShieldRegion', value: 'us-east-2', line: 1 },
  ]);
  assert.equal(other, 'us-east-2');
});
