// Loaded with --require into a built Kiosk's processes by a test (NODE_OPTIONS): as each process
// exits, it writes the npm packages it has loaded to KIOSK_TEST_PACKAGES_FILE plus ".primary" or
// ".worker-<pid>", so a test can say what a worker holds in its heap. Never loaded in production.
const cluster = require('node:cluster');
const fs = require('node:fs');

const file = process.env.KIOSK_TEST_PACKAGES_FILE;
if (file) {
  process.on('exit', () => {
    const packages = new Set();
    for (const loaded of Object.keys(require.cache)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(loaded);
      if (match) packages.add(match[1]);
    }
    const role = cluster.isWorker ? `worker-${process.pid}` : 'primary';
    fs.writeFileSync(`${file}.${role}`, JSON.stringify([...packages].sort()));
  });
}
