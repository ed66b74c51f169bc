import os from 'node:os';
import type { EdgePurgeConfig } from '../config';
import { log } from '../log';
import type { Invalidate } from './purge';

// CloudFront's CreateInvalidation (AWS SDK v3), or, without a distribution, a dry run that logs
// what it would send. The SDK does not retry on its own here: the purge sender retries, with the
// items that arrived meanwhile in the same call (server/edge/purge.ts).

/** CloudFront's API is global; its endpoint is in us-east-1. */
const cloudFrontRegion = 'us-east-1';
const callTimeoutMs = 10_000;

export interface EdgeTarget {
  invalidate: Invalidate;
  /** True when calls reach CloudFront; false for the dry run. */
  live: boolean;
  close(): void;
}

export function cloudFrontTarget(config: EdgePurgeConfig): EdgeTarget {
  const distributionId = config.distributionId;
  if (distributionId === null) {
    return {
      live: false,
      invalidate: (items) => {
        log.info('edge purge dry run (CLOUDFRONT_DISTRIBUTION_ID is not set): would invalidate', { items });
        return Promise.resolve();
      },
      close: () => undefined,
    };
  }
  // The SDK is loaded here, only where there is a distribution to purge: the edge purge runs in
  // the primary, and a module loaded at the top of the bundle is loaded in every worker too,
  // where the client's code was about 45,000 objects (4.3 MB of heap) that every major
  // collection marked.
  const loaded = import('@aws-sdk/client-cloudfront').then(({ CloudFrontClient, CreateInvalidationCommand }) => ({
    client: new CloudFrontClient({
      region: cloudFrontRegion,
      maxAttempts: 1,
      ...(config.endpoint === null ? {} : { endpoint: config.endpoint }),
    }),
    CreateInvalidationCommand,
  }));
  // A failed import surfaces on the first call, like any other error.
  loaded.catch(() => {});
  let sequence = 0;
  return {
    live: true,
    async invalidate(items) {
      sequence += 1;
      // Unique per call: CloudFront refuses a reference it has seen with other items.
      const reference = `kiosk-${os.hostname()}-${process.pid}-${Date.now()}-${sequence}`;
      const { client, CreateInvalidationCommand } = await loaded;
      await client.send(
        new CreateInvalidationCommand({
          DistributionId: distributionId,
          InvalidationBatch: { CallerReference: reference, Paths: { Quantity: items.length, Items: [...items] } },
        }),
        { abortSignal: AbortSignal.timeout(callTimeoutMs) },
      );
    },
    close: () => {
      loaded.then(
        ({ client }) => client.destroy(),
        () => undefined,
      );
    },
  };
}
