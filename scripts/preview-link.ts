// npm run preview-link -- <id> [--ttl 1h]: prints a signed link to an editor's preview.
import { articleIdPattern } from '../src/sections';
import { ConfigError, loadConfig } from '../server/config';
import { previewPath } from '../server/preview';
import { readCommandLine } from './cli';

const usage = `Usage: npm run preview-link -- <article id> [--ttl 1h] [--site https://www.example]

Prints a link that opens the article as readers will see it, draft or published, with a
"Preview — not published" banner, until it expires or the story is taken off the site (every
link issued before an unpublish is refused after it; ask for a new one). Signed with
PREVIEW_SECRET (the same value the servers run with), over the article, the time the link is
made and its expiry; the site is SITE_URL unless --site is given.

  --ttl D      how long the link works: 90s, 30m, 1h, 2d (default 1h, at most 7d)
  --site URL   the site's address (default SITE_URL)
  -h, --help   show this help`;

function parseTtl(raw: string): number {
  const match = /^(\d{1,6})(s|m|h|d)?$/.exec(raw.trim());
  if (!match) throw new Error(`--ttl must look like 90s, 30m, 1h or 2d, got "${raw}"`);
  const seconds = Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[(match[2] ?? 's') as 's' | 'm' | 'h' | 'd'];
  if (seconds < 1 || seconds > 7 * 86_400) throw new Error(`--ttl must be between 1 s and 7 days, got "${raw}"`);
  return seconds;
}

function main(): number {
  const line = readCommandLine({
    name: 'preview-link',
    usage,
    allowPositionals: true,
    options: { ttl: { type: 'string', default: '1h' }, site: { type: 'string' } },
  });
  if (!line.ok) return line.exitCode;
  const { values, positionals } = line;
  const [id, ...rest] = positionals;
  if (!id || rest.length > 0 || !articleIdPattern.test(id)) {
    console.error(`preview-link: give one article id (18 digits)${id ? `, got "${positionals.join(' ')}"` : ''}\n\n${usage}`);
    return 2;
  }
  try {
    const ttl = parseTtl(values.ttl);
    const config = loadConfig({ ...process.env, PREVIEW_ENABLED: 'true', ...(values.site ? { SITE_URL: values.site } : {}) });
    const link = `${config.siteUrl}${previewPath(id, ttl, config.previewSecret!)}`;
    console.log(link);
    console.error(`preview-link: valid until ${new Date(Date.now() + ttl * 1000).toISOString()}`);
    return 0;
  } catch (error) {
    console.error(`preview-link: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
}

process.exit(main());
