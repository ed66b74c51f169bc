// What a new story pushed costs the content layer (push-cost.ts), in a Node process of its own:
// run by the orchestrator pinned to core 0 with NODE_ENV=production, after the render references
// and in a fresh process, so nothing they left in the heap (the 200 pages' stores, the reference
// renders' garbage, their promoted objects) is collected inside a push's pass. Run in the render
// references' process, the pushes of one whole bench spread from -41 to +20 ms; alone, about
// +-1 ms (docs/benchmarks/2026-11-28-whole-list-front.md).
// Usage: node --import tsx tools/bench/push-cost-run.ts DB ARTICLE_PATHS.json
import fs from 'node:fs';
import { measurePushCost } from './push-cost';

const [dbPath = '', pathsFile = ''] = process.argv.slice(2);
if (!dbPath || !pathsFile) {
  console.error('usage: node --import tsx tools/bench/push-cost-run.ts DB ARTICLE_PATHS.json');
  process.exit(2);
}
const paths = JSON.parse(fs.readFileSync(pathsFile, 'utf8')) as string[];
console.log(
  JSON.stringify(
    await measurePushCost(
      dbPath,
      paths.map((p) => p.split('/')[2]!),
    ),
  ),
);
