// Runs first in npm start, npm run dev, npm test and the other commands that load the product.
// On an older Node, better-sqlite3's prebuilt binary (Node-API 10) crashes the process with a
// segmentation fault after one line of output, so the version is checked before anything native
// is loaded, and the reader is told in one sentence what to do. CommonJS, no dependencies and no
// syntax newer than Node 8's, so that any Node that starts at all can run it. npm ci cannot run
// it: npm runs none of the project's scripts before its engine check (a root preinstall runs only
// after the install), so there engine-strict in .npmrc refuses an older Node, and npm's EBADENGINE
// error prints package.json's "engines" whole: "engines.kiosk" is the sentence for that reader.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const range = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines || {}).node;
const match = /^>=\s*(\d+)$/.exec(String(range).trim());
if (!match) {
  console.error(`check-node: package.json "engines.node" must read ">=MAJOR" for this check; it reads ${JSON.stringify(range)}`);
  process.exit(1);
}
const required = Number(match[1]);

// The Node scripts/setup-system.sh links (KIOSK_LINKED_NODE names another, for the tests): when
// it is there and new enough, running setup again would change nothing, and what is wrong is
// the PATH, which finds an older node first.
const linked = process.env.KIOSK_LINKED_NODE || '/usr/local/bin/node';
function linkedVersion() {
  if (!fs.existsSync(linked)) return null;
  const run = require('child_process').spawnSync(linked, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  const version = run.status === 0 ? String(run.stdout).trim() : '';
  return Number(version.split('.')[0]) >= required ? version : null;
}

if (Number(process.versions.node.split('.')[0]) < required) {
  const release = fs.readFileSync(path.join(root, '.node-version'), 'utf8').trim();
  const ready = linkedVersion();
  console.error(
    `Kiosk needs Node.js ${required} or newer but this is Node.js ${process.versions.node} (${process.execPath}): ` +
      (ready
        ? `Node.js ${ready} is already installed as ${linked}: put ${path.dirname(linked)} before ${path.dirname(process.execPath)} in PATH, then try again.`
        : `run \`bash scripts/setup-system.sh\`, which installs Node.js ${release} as /usr/local/bin/node, then try again.`),
  );
  process.exit(1);
}
