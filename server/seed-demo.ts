// Second entry of the server bundle (dist/server/seed-demo.cjs), so the seed's ~1,000 lines of
// made-up copy stay out of dist/server/index.cjs. With SEED_DEMO_CONTENT=true it seeds the
// content store at CONTENT_DB_PATH with demo articles if the store is empty, then exits;
// without it, it does nothing. The Procfile runs it before the cluster, so a demo instance
// (`eb setenv SEED_DEMO_CONTENT=true`) serves the sample newsroom without a build tool on board
// (scripts/seed.ts needs tsx, a devDependency the instance does not install).
import { loadConfig, sqliteContentPath } from './config';
import { seedIfEmpty } from './content/seed';
import { describeError, log } from './log';

async function main(): Promise<void> {
  // The whole config, not just the path: a bad environment fails here with the same message
  // the cluster would give, before any seeding work.
  const { content, seedDemoContent } = loadConfig();
  // The config refuses SEED_DEMO_CONTENT beside any other store.
  const contentDbPath = content.store === 'sqlite' ? content.path : sqliteContentPath();
  if (!seedDemoContent) {
    log.info('demo content not asked for (SEED_DEMO_CONTENT is not true), not seeding', { contentDbPath });
    return;
  }
  const result = await seedIfEmpty(contentDbPath, { log: (line) => log.info(line) });
  if (result.seeded) {
    log.info('content store seeded with demo articles (SEED_DEMO_CONTENT=true)', { contentDbPath, articles: result.inserted, ms: result.ms });
  } else {
    log.info('content store has articles, not seeding', { contentDbPath });
  }
}

main().catch((error: unknown) => {
  log.error('seeding the content store failed', describeError(error));
  process.exit(1);
});
