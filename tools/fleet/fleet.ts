// npm run fleet: the fleet failure runs, long: two instances (Nginx in front of the built
// server's workers, each as `npm run start:nginx` runs it) on one PostgreSQL behind a
// health-checking load-balancer stand-in (tools/fleet/run.ts), under a steady open-loop load. Every process of instance B is killed and brought back, then
// PostgreSQL stops for --outage-s seconds and returns. Writes report.md, fleet.json and
// chart.svg (requests/s by instance, 503s and failures over time) to bench-results/fleet-<time>/.
import fs from 'node:fs';
import path from 'node:path';
import { generateArticles, readCommandLine, refuse, repositoryRoot, UsageError, wholeNumberFlag } from '@kiosk/surface';
import { chartSvg, openLoad, perSecond, startFleet } from './run';

const usage = `Usage: npm run fleet [-- --rate N] [-- --outage-s N] [-- --workers N] [-- --out DIR]

Two instances, each Nginx in front of the built server's workers, on one throwaway PostgreSQL.
Needs a build (npm run build), nginx and Debian's PostgreSQL server binaries. About 70 s plus
the outage.
  --rate N       requests per second through the load balancer stand-in (default 100)
  --outage-s N   how long PostgreSQL is stopped (default 30)
  --workers N    workers per instance (default 2)
  --out DIR      where the report goes (default bench-results/fleet-<time>)
  -h, --help     show this help
`;

const command = { name: 'fleet', usage };
const line = readCommandLine({
  ...command,
  options: {
    rate: { type: 'string' },
    'outage-s': { type: 'string' },
    workers: { type: 'string' },
    out: { type: 'string' },
  },
});
if (!line.ok) process.exit(line.exitCode);
const { values } = line;
const number = (raw: string | undefined, fallback: number, name: string) => {
  try {
    return wholeNumberFlag(`--${name}`, raw, 1, 1_000_000) ?? fallback;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.exit(refuse(command, error.message));
  }
};
const rate = number(values.rate, 100, 'rate');
const outageS = number(values['outage-s'], 30, 'outage-s');
const workers = number(values.workers, 2, 'workers');
const out = path.resolve(values.out ?? path.join(repositoryRoot, 'bench-results', `fleet-${new Date().toISOString().replace(/[:.]/g, '-')}`));
const seeded = { published: 2_000, drafts: 20 };
const paths = [
  '/',
  '/news',
  '/sport',
  ...[...generateArticles(seeded)]
    .filter((a) => a.status === 'published')
    .slice(0, 200)
    .map((a) => `/${a.section}/${a.id}`),
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const fleet = await startFleet({ workers, ...seeded });
const events: { second: number; label: string }[] = [];
try {
  const load = openLoad(fleet.proxy.url, paths, rate);
  const origin = performance.now();
  const mark = (label: string) => {
    events.push({ second: (performance.now() - origin) / 1000, label });
    console.log(`fleet: ${Math.round((performance.now() - origin) / 1000)} s ${label}`);
  };
  await sleep(10_000);
  mark('kill B');
  await fleet.kill('B');
  await sleep(15_000);
  mark('start B');
  await fleet.restart('B');
  await sleep(15_000);
  mark('stop PostgreSQL');
  fleet.database.stop();
  await sleep(outageS * 1000);
  mark('start PostgreSQL');
  fleet.database.start();
  await sleep(20_000);
  await load.stop();

  const seconds = perSecond(load.samples, origin);
  const window = (from: number, to: number) => seconds.slice(Math.round(from), Math.round(to));
  const sum = (list: typeof seconds, key: 'requests' | 'pages' | 'unavailable' | 'failed') => list.reduce((n, s) => n + s[key], 0);
  const [kill, startB, stopDb, startDb] = events.map((e) => e.second) as [number, number, number, number];
  const rows = [
    ['before the kill', window(0, kill)],
    ['B killed', window(kill, startB)],
    ['B back', window(startB, stopDb)],
    ['PostgreSQL stopped', window(stopDb, startDb)],
    ['PostgreSQL back', window(startDb, seconds.length)],
  ] as const;
  const report = [
    `# Fleet failure runs`,
    '',
    `Two instances (Nginx in front of ${workers} workers each), ${rate} req/s through the load-balancer stand-in, PostgreSQL stopped for ${outageS} s; ${new Date().toISOString()}.`,
    '',
    '| phase | requests | pages | 503 (designed) | failed | failed % |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(([name, list]) => {
      const requests = sum(list, 'requests');
      return `| ${name} | ${requests} | ${sum(list, 'pages')} | ${sum(list, 'unavailable')} | ${sum(list, 'failed')} | ${((100 * sum(list, 'failed')) / Math.max(1, requests)).toFixed(2)}% |`;
    }),
    '',
    `Health: ${fleet.proxy.changes.map((c) => `${c.target} ${c.healthy ? 'in' : 'out'} at ${((c.atMs - origin) / 1000).toFixed(1)} s`).join(', ')}.`,
    '',
  ].join('\n');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'report.md'), report);
  fs.writeFileSync(path.join(out, 'fleet.json'), `${JSON.stringify({ rate, outageS, workers, events, seconds }, null, 1)}\n`);
  fs.writeFileSync(path.join(out, 'chart.svg'), chartSvg(seconds, events, `Kiosk fleet: ${rate} req/s, instance B killed, PostgreSQL stopped ${outageS} s`));
  console.log(`\n${report}\nfleet: wrote ${path.relative(process.cwd(), out)}/report.md, fleet.json, chart.svg`);
} finally {
  await fleet.close();
}
