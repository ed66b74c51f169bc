import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { seedPostgres } from '../server/content/postgres-seed';
import { defaultDrafts, defaultPublished, seedStore, StoreNotEmptyError } from '../server/content/seed';
import { sqliteContentPath } from '../server/config';
import { parseCommandLine, runCommand, UsageError, wholeNumberFlag } from './cli';

const usage = `Usage: tsx scripts/seed.ts [--db PATH | --database-url URL] [--published N] [--drafts N] [--reset] [--help]

Fills the embedded content store with sample articles. The same options always write the
same articles, so screenshots and tests can rely on them.

Options:
  --db PATH        SQLite file to write; its directory is created if missing
                   (default: $CONTENT_DB_PATH, else data/kiosk.sqlite)
  --database-url URL  seed the PostgreSQL content store at this postgres:// URL instead
                   (migrated first: npm run db:migrate); the same articles as SQLite gets
  --published N    published articles to write (default: ${defaultPublished})
  --drafts N       drafts to write, never shown on public pages (default: ${defaultDrafts})
  --reset          delete every article already in the store first; without it a store
                   that has articles is left untouched and the seed exits with code 1
  -h, --help       show this help

Exit codes: 0 seeded, 1 store not empty or seeding failed, 2 bad arguments.
`;

interface SeedCommand {
  db: string;
  databaseUrl: string | null;
  published: number;
  drafts: number;
  reset: boolean;
}

/** The command line; null for --help. */
function readCommand(args: string[]): SeedCommand | null {
  const parsed = parseCommandLine(args, {
    options: {
      db: { type: 'string' },
      'database-url': { type: 'string' },
      published: { type: 'string' },
      drafts: { type: 'string' },
      reset: { type: 'boolean', default: false },
    },
  });
  if (parsed === null) return null;
  const { values } = parsed;
  return {
    db: values.db === undefined ? sqliteContentPath() : resolve(values.db),
    databaseUrl: databaseUrl(values['database-url'], values.db),
    published: count('--published', values.published, defaultPublished, 1),
    drafts: count('--drafts', values.drafts, defaultDrafts, 0),
    reset: values.reset,
  };
}

function databaseUrl(raw: string | undefined, db: string | undefined): string | null {
  if (raw === undefined) return null;
  if (db !== undefined) throw new UsageError('--db and --database-url name two stores: give one');
  if (!/^postgres(ql)?:\/\//.test(raw)) throw new UsageError('--database-url must be a postgres:// URL');
  return raw;
}

// The front page needs at least one published article; ids have room for 999,999 in all.
function count(flag: string, raw: string | undefined, fallback: number, min: number): number {
  return wholeNumberFlag(flag, raw, min, 500_000) ?? fallback;
}

async function main(args: string[]): Promise<number> {
  const command = readCommand(args);
  if (command === null) {
    console.log(usage);
    return 0;
  }

  try {
    const { published, drafts, reset } = command;
    const log = (line: string) => console.log(line);
    if (command.databaseUrl !== null) {
      console.log('seed: the PostgreSQL content store');
      const { inserted, ms } = await seedPostgres(command.databaseUrl, { published, drafts, reset, log });
      console.log(`seed: done, ${inserted} articles in ${(ms / 1000).toFixed(2)} s`);
      return 0;
    }
    console.log(`seed: ${command.db}`);
    const { inserted, ms } = await seedStore(command.db, { published, drafts, reset, log });
    const megabytes = (statSync(command.db).size / 1_048_576).toFixed(1);
    console.log(`seed: done, ${inserted} articles in ${(ms / 1000).toFixed(2)} s, ${megabytes} MB on disk`);
    return 0;
  } catch (error) {
    if (error instanceof StoreNotEmptyError) {
      console.error(
        `seed: ${command.databaseUrl === null ? command.db : 'the content database'} already has ${error.articles} articles; pass --reset to replace them`,
      );
    } else {
      console.error('seed: failed', error);
    }
    return 1;
  }
}

await runCommand({ name: 'seed', usage }, () => main(process.argv.slice(2)));
