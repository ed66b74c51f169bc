// npm run lighthouse: what readers feel of the fallback. Lighthouse (mobile, simulated
// throttling, its defaults) on the same article page served server-rendered and as the shell,
// side by side. Uses Debian's Chromium (CHROME_PATH, default /usr/bin/chromium).
import fs from 'node:fs';
import path from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { median, prepareToServe, readCommandLine, refuse, repositoryRoot as root, seedTempStore, startBuiltServer, type BuiltServer } from '@kiosk/surface';

const usage = `Usage: npm run lighthouse [-- --runs N] [-- --out DIR]

Builds if needed, starts the built server twice on a seeded temporary store (once as usual,
once with SSR_QUEUE_LIMIT=0 so every page is the shell), runs Lighthouse N times (default 3)
on the same article page from each, and prints the medians: LCP, FCP, TBT, CLS, and the
performance, accessibility and SEO scores. Writes DIR/lighthouse.json (default bench-results/).

  --runs N     runs per mode (default 3; the median is reported)
  --out DIR    where the JSON goes
  -h, --help   show this help`;

interface Figures {
  lcpMs: number;
  fcpMs: number;
  tbtMs: number;
  cls: number;
  performance: number;
  accessibility: number;
  seo: number;
}

async function audit(url: string, port: number): Promise<Figures> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility', 'seo'] });
  if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
  const { audits, categories } = result.lhr;
  const value = (id: string) => audits[id]?.numericValue ?? Number.NaN;
  const score = (id: string) => Math.round((categories[id]?.score ?? Number.NaN) * 100);
  return {
    lcpMs: value('largest-contentful-paint'),
    fcpMs: value('first-contentful-paint'),
    tbtMs: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    performance: score('performance'),
    accessibility: score('accessibility'),
    seo: score('seo'),
  };
}

async function main(): Promise<number> {
  const command = { name: 'lighthouse', usage };
  const line = readCommandLine({ ...command, options: { runs: { type: 'string', default: '3' }, out: { type: 'string' } } });
  if (!line.ok) return line.exitCode;
  const { values } = line;
  const runs = Number(values.runs);
  if (!/^\d+$/.test(values.runs) || runs < 1 || runs > 20) return refuse(command, `--runs must be a whole number from 1 to 20, got "${values.runs}"`);
  const outDir = path.resolve(root, values.out ?? 'bench-results');

  await prepareToServe({ build: true, seed: false, contentDbPath: '', name: 'lighthouse' });
  console.log('lighthouse: seeding a temporary store');
  const { dir, dbPath } = await seedTempStore(1_000, 10);
  const servers: BuiltServer[] = [];
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    chromeFlags: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const modes: { name: string; env: Record<string, string> }[] = [
      { name: 'server-rendered', env: {} },
      { name: 'shell (SSR_QUEUE_LIMIT=0)', env: { SSR_QUEUE_LIMIT: '0', CRAWLER_QUEUE_LIMIT: '0' } },
    ];
    const rows: { mode: string; url: string; runs: Figures[]; median: Figures }[] = [];
    for (const mode of modes) {
      const server = await startBuiltServer(dbPath, mode.env);
      servers.push(server);
      const latest = (await (await fetch(`${server.baseUrl}/api/latest?limit=3`)).json()) as { items: { section: string; id: string }[] };
      const article = latest.items[2]!;
      const url = `${server.baseUrl}/${article.section}/${article.id}`;
      const results: Figures[] = [];
      for (let i = 1; i <= runs; i++) {
        console.log(`lighthouse: ${mode.name}, run ${i} of ${runs}: ${url}`);
        results.push(await audit(url, chrome.port));
      }
      const keys = Object.keys(results[0]!) as (keyof Figures)[];
      const med = Object.fromEntries(keys.map((k) => [k, median(results.map((r) => r[k]))])) as unknown as Figures;
      rows.push({ mode: mode.name, url, runs: results, median: med });
    }
    const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
    console.log(`\nLighthouse ${runs} run(s) per mode, medians (mobile, simulated throttling):\n`);
    console.log('| article page | LCP ms | FCP ms | TBT ms | CLS | performance | accessibility | SEO |');
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const r of rows) {
      const m = r.median;
      console.log(
        `| ${r.mode} | ${fmt(m.lcpMs)} | ${fmt(m.fcpMs)} | ${fmt(m.tbtMs)} | ${m.cls.toFixed(3)} | ${m.performance} | ${m.accessibility} | ${m.seo} |`,
      );
    }
    fs.mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, 'lighthouse.json');
    fs.writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), runs, rows }, null, 2)}\n`);
    console.log(`\nlighthouse: wrote ${path.relative(root, file)}`);
    return 0;
  } finally {
    chrome.kill();
    for (const server of servers) await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('lighthouse: failed', error);
    process.exit(1);
  },
);
