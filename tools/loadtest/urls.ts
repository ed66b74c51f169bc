// npm run loadtest:urls: the Gatling simulations' feed of article URLs, from the content store.
import path from 'node:path';
import { readCommandLine, sqliteContentPath } from '@kiosk/surface';
import { defaultFeedPath, writeFeed } from './feed';

const usage = `Usage: npm run loadtest:urls -- [--db PATH] [--out FILE] [--help]

Writes the URL feed of the Gatling simulations: a CSV with the columns path,section,id and
one row per published article of the content store (drafts never), newest first, so the
same store always gives the same feed. The seeded store gives 10,000 URLs.
\`npm run loadtest\` writes it by itself when it is missing.

Options:
  --db PATH    content store to read (default: $CONTENT_DB_PATH, else data/kiosk.sqlite)
  --out FILE   where to write (default: ${path.relative(process.cwd(), defaultFeedPath)})
  -h, --help   show this help

Exit codes: 0 written, 1 no store or no published article, 2 bad arguments.
`;

function main(args: string[]): number {
  const line = readCommandLine({ name: 'loadtest:urls', usage, args, options: { db: { type: 'string' }, out: { type: 'string' } } });
  if (!line.ok) return line.exitCode;
  const { values } = line;
  const db = values.db === undefined ? sqliteContentPath() : path.resolve(values.db);
  const out = path.resolve(values.out ?? defaultFeedPath);
  try {
    const count = writeFeed(db, out);
    console.log(`loadtest:urls: ${count} article URLs from ${db} written to ${out}`);
    return 0;
  } catch (error) {
    console.error(`loadtest:urls: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

process.exitCode = main(process.argv.slice(2));
