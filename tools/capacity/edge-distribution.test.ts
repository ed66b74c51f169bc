// The edge model's regional cache by default: what the distribution in .ebextensions has. The
// repository's distribution has Origin Shield; one without it, or no directory, has none.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { repositoryRoot } from '@kiosk/surface';
import { readOriginShield } from './edge-distribution';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-origin-shield-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A copy of the repository's .ebextensions, with `edit` applied to the CloudFront file's text. */
function variant(name: string, edit: (text: string) => string, extra: Record<string, string> = {}): string {
  const target = path.join(dir, name);
  fs.mkdirSync(target);
  const source = path.join(repositoryRoot, '.ebextensions');
  for (const file of fs.readdirSync(source).filter((f) => f.endsWith('.config'))) {
    const text = fs.readFileSync(path.join(source, file), 'utf8');
    fs.writeFileSync(path.join(target, file), file === '10-cloudfront.config' ? edit(text) : text);
  }
  for (const [file, text] of Object.entries(extra)) fs.writeFileSync(path.join(target, file), text);
  return target;
}

test("the repository's distribution has Origin Shield, in the default region", () => {
  assert.deepEqual(readOriginShield(path.join(repositoryRoot, '.ebextensions')), { region: 'eu-west-1', file: '.ebextensions/10-cloudfront.config' });
});

test('the region an option setting names is the one read', () => {
  const other = variant('other-region', (text) => text, {
    '99-region.config': 'option_settings:\n  aws:elasticbeanstalk:customoption:\n    OriginShieldRegion: us-east-2\n',
  });
  assert.equal(readOriginShield(other)?.region, 'us-east-2');
});

test('a distribution with Origin Shield off or without it, or no .ebextensions at all: none', () => {
  const off = variant('off', (text) => text.replace(/OriginShield:\n(\s+)Enabled: true/, 'OriginShield:\n$1Enabled: false'));
  assert.match(fs.readFileSync(path.join(off, '10-cloudfront.config'), 'utf8'), /Enabled: false/);
  assert.equal(readOriginShield(off), null);
  const without = variant('without', (text) => text.replace(/\n {12}OriginShield:\n(?: {14}.*\n)+/, '\n'));
  assert.doesNotMatch(fs.readFileSync(path.join(without, '10-cloudfront.config'), 'utf8'), /^\s+OriginShield:/m);
  assert.equal(readOriginShield(without), null);
  assert.equal(readOriginShield(path.join(dir, 'no-such-dir')), null);
});
