import os from 'node:os';

// Which machine a metric came from. On EC2 the instance id ties a line on the dashboard to
// the instance in the console and in the Auto Scaling activity; anywhere else the host name
// is the best there is. Instance metadata v2 only: a session token first (PUT), then the
// id with that token; v1's plain GET is turned off on hardened instances.

export interface InstanceLookup {
  /** AWS_EC2_METADATA_SERVICE_ENDPOINT, the SDKs' variable; the link-local address otherwise. */
  endpoint?: string;
  /** AWS_EC2_METADATA_DISABLED=true skips the lookup, as it does for the SDKs. */
  disabled?: boolean;
  /** Both requests together; off EC2 the address does not answer, and start-up must not wait for it. */
  timeoutMs?: number;
}

export interface Instance {
  id: string;
  source: 'instance-metadata' | 'hostname';
}

export const defaultMetadataEndpoint = 'http://169.254.169.254';

export async function resolveInstance({ endpoint = defaultMetadataEndpoint, disabled = false, timeoutMs = 1_000 }: InstanceLookup = {}): Promise<Instance> {
  if (!disabled) {
    try {
      const signal = AbortSignal.timeout(timeoutMs);
      const base = endpoint.replace(/\/+$/, '');
      const tokenResponse = await fetch(`${base}/latest/api/token`, {
        method: 'PUT',
        headers: { 'X-aws-ec2-metadata-token-ttl-seconds': '60' },
        signal,
      });
      if (tokenResponse.ok) {
        const token = await tokenResponse.text();
        const idResponse = await fetch(`${base}/latest/meta-data/instance-id`, {
          headers: { 'X-aws-ec2-metadata-token': token },
          signal,
        });
        const id = (await idResponse.text()).trim();
        if (idResponse.ok && /^i-[0-9a-f]+$/.test(id)) return { id, source: 'instance-metadata' };
      }
    } catch {
      // Not on EC2 (or metadata blocked): the host name below.
    }
  }
  return { id: os.hostname(), source: 'hostname' };
}
