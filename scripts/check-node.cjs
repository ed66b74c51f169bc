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
if (Number(process.versions.node.split('.')[0]) < required) {
  const release = fs.readFileSync(path.join(root, '.node-version'), 'utf8').trim();
  console.error(
    `Kiosk needs Node.js ${required} or newer but this is Node.js ${process.versions.node} (${process.execPath}): ` +
      `run \`bash scripts/setup-system.sh\`, which installs Node.js ${release} as /usr/local/bin/node, then try again.`,
  );
  process.exit(1);
}
