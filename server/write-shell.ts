// Writes dist/client/shell.html from the build just made: run by webpack.config.js after the
// server bundle is emitted, as `node dist/server/write-shell.cjs DIST_DIR`.
import { loadAssets } from './assets';
import { writeShellFile } from './shell-file';

const distDir = process.argv[2];
if (!distDir) {
  console.error('usage: node dist/server/write-shell.cjs DIST_DIR');
  process.exit(2);
}
const file = writeShellFile(distDir, loadAssets(distDir));
console.log(`write-shell: ${file}`);
