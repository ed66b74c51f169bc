import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { NginxFallbackLog } from './nginx-fallback';

test("Nginx's fallback log: last good copies, shells, API 503s and write-path 429s counted apart, the file emptied, totals that only rise", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-fallback-'));
  const file = path.join(dir, 'fallback.log');
  const log = new NginxFallbackLog(file);
  assert.deepEqual(log.read(), { lastGood: 0, shell: 0, busy503: 0, limited: 0 }, 'no file yet: nothing counted');
  fs.writeFileSync(
    file,
    '1.1 nginx-shell kiosk_pages\n1.2 nginx-shell 127.0.0.1:8080\n1.3 nginx-503 kiosk_api\n1.4 nginx-429 -\n1.5 nginx-429 -\n1.6 nginx-last-good kiosk_pages\n',
  );
  assert.deepEqual(log.read(), { lastGood: 1, shell: 2, busy503: 1, limited: 2 });
  assert.equal(fs.statSync(file).size, 0);
  fs.appendFileSync(file, '2.0 nginx-shell kiosk_pages\n2.1 nginx-last-good kiosk_pages\n2.2 nginx-last-good 127.0.0.1:8081\n');
  assert.deepEqual(log.read(), { lastGood: 3, shell: 3, busy503: 1, limited: 2 });
  assert.deepEqual(log.read(), { lastGood: 3, shell: 3, busy503: 1, limited: 2 });
  fs.rmSync(dir, { recursive: true });
});
