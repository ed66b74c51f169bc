import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readBenchJson } from './bench-input';
import { benchCheck } from './report';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'bench.json');

describe('bench input', () => {
  test('per-core rates and the overload steps of a real npm run bench result', () => {
    const bench = readBenchJson(fs.readFileSync(fixture, 'utf8'), 'bench.json');
    assert.deepEqual([bench.ssrPerCore, bench.shellPerCore, bench.cpuModel], [1222, 7661, 'AMD EPYC']);
    const on2 = bench.steps.find((s) => s.mode === 'on' && s.multiplier === 2)!;
    assert.deepEqual([on2.offeredPerS, on2.timeouts, on2.errors], [2444, 0, 0]);
    assert.ok(on2.p99Ms > 0 && on2.ssrShare > 0.5);
    // At 2× capacity the model renders (1 - 2444/7661) / (1/1222 - 1/7661) = 990 of 2,444 pages: 41%.
    const check = benchCheck(bench, 1222 / 7661).join('\n');
    assert.match(check, /on ×2\s+2,444\s+2,448\s+55%\s+36 ms\s+0\s+41%\s+0/);
  });

  test('a file that is not a bench result says which field is missing', () => {
    assert.throws(() => readBenchJson('{}', 'x.json'), /x\.json: capacity\.ratePerS is missing/);
    assert.throws(() => readBenchJson('{"capacity":{"ratePerS":900}}', 'x.json'), /reference\.shellPath\.ratePerS/);
    assert.throws(() => readBenchJson('not json', 'x.json'), /x\.json: not JSON/);
  });
});
