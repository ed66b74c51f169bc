// How the bench reads loadgen's result: once loadgen's output is closed, not when its process
// exits. Node may report the exit before the last of stdout is read ("stdio streams might still
// be open"), and the whole bench of 2026-11-28 03:08 failed on it ("loadgen printed no result:
// Unexpected end of JSON input") with two generators running at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { NativeGenerator } from './native-generator';

test("loadgen's result is read once its output closes, even when that is after its process exited", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kiosk-loadgen-stand-in-'));
  try {
    // A stand-in for loadgen (the real one is in native-generator.services.test.ts): it exits at
    // once, and what it left running writes the result to the same output a moment later.
    const standIn = path.join(dir, 'loadgen');
    fs.writeFileSync(standIn, `#!/bin/sh\nprintf 'measuring\\nmeasured\\n'\n( sleep 0.3; printf '{"counts":{"sent":7}}' ) &\nexit 0\n`, { mode: 0o755 });
    const phases: string[] = [];
    const generator = new NativeGenerator(standIn, path.join(dir, 'paths.json'));
    const step = { host: '127.0.0.1', port: 1, ratePerS: 1, warmupS: 0, durationS: 1, timeoutMs: 1_000, maxConnections: 1 };
    const result = await generator.run(step, (phase) => phases.push(phase));
    assert.deepEqual(result, { counts: { sent: 7 } });
    assert.deepEqual(phases, ['measuring', 'measured']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
