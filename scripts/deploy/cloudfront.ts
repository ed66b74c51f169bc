// CloudFront's cache behaviours, rendered from the route table (src/request-kinds.ts): one
// behaviour for each entry that the default behaviour (the pages': the origin's Cache-Control
// decides, no query string in the key) does not suit, in the table's order. The behaviours in
// .ebextensions/10-cloudfront.config must be exactly these (scripts/deploy/cloudfront.test.ts
// compares them); `npx tsx scripts/deploy/cloudfront.ts` prints them as YAML to paste there.
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { apiQueryParams } from '../../src/api-paths';
import { routeTable, type EdgeClass, type Route } from '../../src/request-kinds';
import { cacheTagHeaderName } from '../../server/edge/tags';

/**
 * AWS-managed policies, by the ids CloudFormation takes ("Use managed cache policies", "Use
 * managed origin request policies").
 */
export const managed = {
  CachingOptimized: '658327ea-f89d-4fab-a63d-7e88639e58f6',
  CachingDisabled: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
  AllViewerExceptHostHeader: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
} as const;

/** The distribution's one origin (.ebextensions/10-cloudfront.config's Origins). */
export const originId = 'kiosk-load-balancer';

export interface Behavior {
  PathPattern?: string;
  TargetOriginId: string;
  ViewerProtocolPolicy: 'redirect-to-https' | 'https-only';
  AllowedMethods: string[];
  CachedMethods: string[];
  Compress?: boolean;
  CachePolicyId: unknown;
  OriginRequestPolicyId?: unknown;
  FunctionAssociations?: { EventType: string; FunctionARN: unknown }[];
}

const reads = ['GET', 'HEAD'];
/** CloudFront takes these three sets only; a behaviour that must pass a POST, PUT or DELETE takes all. */
const every = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'];

/** What each edge class is at CloudFront; `origin` is the default behaviour, so it renders none. */
const byClass: Record<Exclude<EdgeClass, 'origin'>, Omit<Behavior, 'PathPattern' | 'TargetOriginId' | 'ViewerProtocolPolicy'>> = {
  immutable: { AllowedMethods: reads, CachedMethods: reads, Compress: true, CachePolicyId: managed.CachingOptimized },
  api: {
    AllowedMethods: reads,
    CachedMethods: reads,
    Compress: true,
    CachePolicyId: { Ref: 'KioskApiCachePolicy' },
    OriginRequestPolicyId: { Ref: 'KioskPagesOriginRequestPolicy' },
  },
  private: {
    AllowedMethods: reads,
    CachedMethods: reads,
    Compress: true,
    CachePolicyId: managed.CachingDisabled,
    OriginRequestPolicyId: managed.AllViewerExceptHostHeader,
  },
  write: {
    AllowedMethods: every,
    CachedMethods: reads,
    Compress: true,
    CachePolicyId: managed.CachingDisabled,
    OriginRequestPolicyId: managed.AllViewerExceptHostHeader,
  },
  blocked: {
    AllowedMethods: reads,
    CachedMethods: reads,
    CachePolicyId: managed.CachingDisabled,
    FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': ['KioskNotRoutedFunction', 'FunctionARN'] } }],
  },
};

/** CloudFront's pattern for an entry: its exact path, or its prefix and "*". */
export function pathPattern(route: Route): string {
  return route.exact ?? `${route.prefix!}*`;
}

/** The distribution's CacheBehaviors, from the route table. */
export function cacheBehaviours(): Behavior[] {
  return (routeTable as readonly Route[])
    .filter((route) => route.edge !== 'origin')
    .map((route) => ({
      PathPattern: pathPattern(route),
      TargetOriginId: originId,
      ViewerProtocolPolicy: route.httpsOnly ? 'https-only' : 'redirect-to-https',
      ...byClass[route.edge as Exclude<EdgeClass, 'origin'>],
    }));
}

/** The API cache policy's query strings: exactly the parameters the API reads (src/api-paths.ts). */
export function apiCacheKeyQueryStrings(): { QueryStringBehavior: 'whitelist'; QueryStrings: string[] } {
  return { QueryStringBehavior: 'whitelist', QueryStrings: [...apiQueryParams] };
}

/**
 * The distribution's CacheTagConfig: the header the origin names its cache tags in
 * (server/edge/tags.ts), which CloudFront stores with each object so CreateInvalidation can
 * drop objects by "#tag".
 */
export function cacheTagConfig(): { HeaderName: string } {
  return { HeaderName: cacheTagHeaderName };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(
    stringify(
      { CacheBehaviors: cacheBehaviours(), ApiQueryStringsConfig: apiCacheKeyQueryStrings(), CacheTagConfig: cacheTagConfig() },
      { aliasDuplicateObjects: false },
    ),
  );
}
