// npm run bundle: the Elastic Beanstalk source bundle (docs/deploy.md).
import fs from 'node:fs';
import path from 'node:path';
import { readCommandLine } from './cli';
import { staleBuildReason } from './build-state';
import { bundleFiles, bundleProblems, formatBytes, summarize, writeZip } from './deploy/bundle';
import { prepareToServe, root } from './prepare';

const usage = `Usage: npm run bundle [-- --out PATH] [-- --no-build]

Writes the Elastic Beanstalk source bundle: dist/ (the production build), package.json,
package-lock.json, Procfile, .ebextensions/ and .platform/, and nothing else. The platform
installs the runtime dependencies on each instance (npm install without devDependencies).
Builds first if dist/ is missing or older than the sources, and refuses to package a Nginx
rendering that is stale or disagrees with the environment properties.

  --out PATH    where to write the zip (default bundle/kiosk.zip)
  --no-build    fail instead of building when dist/ is stale
  -h, --help    show this help`;

async function main(): Promise<number> {
  const line = readCommandLine({
    name: 'bundle',
    usage,
    options: { out: { type: 'string', default: 'bundle/kiosk.zip' }, 'no-build': { type: 'boolean', default: false } },
  });
  if (!line.ok) return line.exitCode;
  const { values } = line;

  const problems = bundleProblems();
  if (problems.length > 0) {
    console.error(`bundle: not packaging this configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    return 1;
  }
  const stale = staleBuildReason(root);
  if (stale && values['no-build']) {
    console.error(`bundle: dist/ is stale (${stale}); run "npm run build" or drop --no-build`);
    return 1;
  }
  await prepareToServe({ build: true, seed: false, contentDbPath: '', name: 'bundle' });

  const out = path.resolve(values.out);
  const files = bundleFiles(root);
  writeZip(root, files, out);
  const unpacked = files.reduce((sum, f) => sum + f.bytes, 0);
  console.log(
    `bundle: wrote ${path.relative(process.cwd(), out) || out}: ${formatBytes(fs.statSync(out).size)}, ${files.length} files (${formatBytes(unpacked)} unpacked)`,
  );
  for (const line of summarize(files)) console.log(line);
  console.log('bundle: deploy it with "eb deploy" (deploy: artifact in .elasticbeanstalk/config.yml) or upload it in the console');
  return 0;
}

process.exitCode = await main();
