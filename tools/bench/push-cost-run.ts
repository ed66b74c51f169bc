// What a new story pushed costs the content layer (push-cost.ts), in a Node process of its own:
// run by the orchestrator pinned to core 0 with NODE_ENV=production, after the render references
// and in a fresh process, so nothing they left in the heap (the 200 pages' stores, the reference
// renders' garbage) is collected inside a push's pass. That does not make the host steadier: the
// whole bench of 2026-11-28 09:36 ran it here and its pushes still spread from -56 to +33 ms (in
// the references' process at 08:17, -41 to +20 ms); the control push-cost.ts measures beside them
// says how far to trust their median.
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
