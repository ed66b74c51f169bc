// npm run nginx:render: writes .platform/nginx/nginx.conf from nginx/kiosk.conf.template.
import fs from 'node:fs';
import path from 'node:path';
import { readCommandLine } from './cli';
import { ebConfigPath, renderEbConfig, root } from './nginx/render';

const usage = `Usage: npm run nginx:render [-- --workers N] [-- --check]

Renders nginx/kiosk.conf.template into .platform/nginx/nginx.conf, the file Elastic Beanstalk
(Amazon Linux 2023) installs as /etc/nginx/nginx.conf. The upstream lists one port per Node
worker (8080, 8081, ...), so render for the environment's WEB_CONCURRENCY.

  --workers N   Node workers on the instance (default 4: one per vCPU of a c5.xlarge)
  --check       exit 1 if the committed file differs from a fresh rendering; write nothing
  -h, --help    show this help`;

function main(): number {
  const line = readCommandLine({ name: 'nginx:render', usage, options: { workers: { type: 'string', default: '4' }, check: { type: 'boolean' } } });
  if (!line.ok) return line.exitCode;
  const { values } = line;
  const workers = Number(values.workers);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
    console.error(`--workers must be a whole number from 1 to 64, got "${values.workers}"`);
    return 2;
  }
  const rendered = renderEbConfig(workers);
  const relative = path.relative(root, ebConfigPath);
  if (values.check) {
    const current = fs.existsSync(ebConfigPath) ? fs.readFileSync(ebConfigPath, 'utf8') : '';
    if (current === rendered) {
      console.log(`nginx:render: ${relative} is up to date`);
      return 0;
    }
    console.error(`nginx:render: ${relative} differs from nginx/kiosk.conf.template: run "npm run nginx:render"`);
    return 1;
  }
  fs.mkdirSync(path.dirname(ebConfigPath), { recursive: true });
  fs.writeFileSync(ebConfigPath, rendered);
  console.log(`nginx:render: wrote ${relative} (${workers} worker ports from 8080)`);
  return 0;
}

process.exit(main());
