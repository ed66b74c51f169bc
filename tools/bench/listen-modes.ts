// How the listening modes compare when nothing is in front of Node: one worker pinned to core 0,
// the guard on, the native generator on core 1 offering a multiple of a given capacity, each
// mode in turn in one run. Usage: npx tsx tools/bench/listen-modes.ts CAPACITY [MULTIPLIER=5]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repositoryRoot as root } from '@kiosk/surface';
import { articlePaths, seedBenchStore } from './articles';
import { measureStep, settle } from './measure';
import { NativeGenerator, nativeGeneratorBinary } from './native-generator';
import { killChildren, startKiosk } from './processes';
import { ms, pct, perS } from './report';

const capacity = Number(process.argv[2]);
const multiplier = Number(process.argv[3] ?? 5);
if (!(capacity > 0) || !(multiplier > 0)) {
  console.error('usage: npx tsx tools/bench/listen-modes.ts CAPACITY [MULTIPLIER]');
  process.exit(2);
}
const modes: [string, Record<string, string>][] = [
  ['reuse-port', { LISTEN_MODE: 'reuse-port' }],
  ['shared, rr', { LISTEN_MODE: 'shared', CLUSTER_SCHEDULING: 'rr' }],
  ['shared, none', { LISTEN_MODE: 'shared', CLUSTER_SCHEDULING: 'none' }],
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-listen-'));
try {
  const dbPath = path.join(dir, 'kiosk.sqlite');
  await seedBenchStore(dbPath);
  const pathsFile = path.join(dir, 'paths.json');
  fs.writeFileSync(pathsFile, JSON.stringify(articlePaths(dbPath)));
  const generator = new NativeGenerator(nativeGeneratorBinary(root), pathsFile);
  const rate = Math.round(capacity * multiplier);
  console.log(
    `| listening | offered | sent | p50 ms | p99 ms | timeouts | server-rendered | SSR/s |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  );
  for (const [name, env] of modes) {
    const server = await startKiosk(root, name, dbPath, env);
    try {
      await measureStep(generator, server, 'warm-up', Math.round(capacity / 3), { warmupS: 3, durationS: 0.5, timeoutMs: 5000, maxConnections: 4000 });
      await settle(server);
      const s = await measureStep(generator, server, name, rate, { warmupS: 3, durationS: 10, timeoutMs: 5000, maxConnections: 4000 });
      console.log(
        `| ${name} | ${perS(rate)} | ${perS(s.sentPerS)} | ${ms(s.latencyMs.p50)} | ${ms(s.latencyMs.p99)} | ${s.timeouts} | ${pct(s.ssrShare)} | ${perS(s.ssrPerS)} |`,
      );
    } finally {
      await server.stop();
    }
  }
} finally {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
}
