// What the CloudFront distribution in .ebextensions puts between the edge and the origin: its
// origin's Origin Shield, read as Elastic Beanstalk hands it to CloudFormation (option settings
// resolved). With Origin Shield every edge location's and regional cache's miss goes through one
// regional cache, so the edge model (edge.ts) takes one regional cache by default.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfigFiles, optionSettings, resolveOptionSettings, resources } from '@kiosk/surface';

export interface OriginShield {
  /** The AWS region Origin Shield runs in (OriginShieldRegion). */
  region: string;
  /** The .ebextensions file that declares the distribution. */
  file: string;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The Origin Shield of the first CloudFront distribution in `dir` whose origins have one enabled;
 * null without one (no directory, no distribution, Origin Shield off). A file Elastic Beanstalk
 * would not read is skipped, as the policy reader skips it.
 */
export function readOriginShield(dir: string): OriginShield | null {
  if (!fs.existsSync(dir)) return null;
  const files = loadConfigFiles(dir, () => undefined);
  const settings = optionSettings(files, () => undefined);
  for (const [, resource] of Object.entries(resources(files))) {
    if (resource.Type !== 'AWS::CloudFront::Distribution') continue;
    const resolved = resolveOptionSettings(resource.Properties ?? {}, settings) as Json;
    const config = resolved.DistributionConfig;
    const origins = isRecord(config) && Array.isArray(config.Origins) ? (config.Origins as unknown[]) : [];
    for (const origin of origins) {
      const shield = isRecord(origin) ? origin.OriginShield : undefined;
      if (!isRecord(shield) || !(shield.Enabled === true || shield.Enabled === 'true')) continue;
      const region = typeof shield.OriginShieldRegion === 'string' ? shield.OriginShieldRegion : '(region not set)';
      return { region, file: path.join(path.basename(dir), resource.file) };
    }
  }
  return null;
}
