// The command line every command reads, and the statistics every report uses: one definition each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { numberFlag, parseCommandLine, portFlag, UsageError, wholeNumberFlag } from './cli';
import { median, percentile } from './statistics';

const spec = { options: { runs: { type: 'string' }, quick: { type: 'boolean', default: false } } } as const;

test('a command line: its flags, null for --help or -h, a UsageError naming an unknown flag or a missing value', () => {
  assert.deepEqual({ ...parseCommandLine(['--runs', '3', '--quick'], spec)?.values }, { runs: '3', quick: true });
  assert.equal(parseCommandLine(['--help'], spec), null);
  assert.equal(parseCommandLine(['-h', '--runs', '3'], spec), null);
  assert.throws(
    () => parseCommandLine(['--rnus', '3'], spec),
    (e: Error) => e instanceof UsageError && /'--rnus'/.test(e.message),
  );
  assert.throws(() => parseCommandLine(['--runs'], spec), UsageError);
  assert.throws(() => parseCommandLine(['extra'], spec), UsageError, 'no positionals unless the command takes them');
  assert.deepEqual(parseCommandLine(['a.json'], { ...spec, allowPositionals: true })?.positionals, ['a.json']);
});

test("a flag's number: null without it, a UsageError naming the flag and the rule otherwise", () => {
  assert.equal(
    numberFlag('--rate', undefined, (n) => n > 0, 'positive'),
    null,
  );
  assert.equal(
    numberFlag('--rate', '2.5', (n) => n > 0, 'positive'),
    2.5,
  );
  for (const bad of ['', ' ', 'x', '-1', 'Infinity']) {
    assert.throws(() => numberFlag('--rate', bad, (n) => n > 0 && n < 1e9, 'positive'), /--rate must be positive, got/, bad);
  }
  assert.equal(wholeNumberFlag('--runs', '0', 0, 10), 0);
  for (const bad of ['1.5', '-1', '11', '1e1']) assert.throws(() => wholeNumberFlag('--runs', bad, 0, 10), /--runs must be a whole number from 0 to 10/, bad);
  assert.equal(portFlag('--port', '5433'), 5433);
  for (const bad of ['0', '65536', '80.5']) assert.throws(() => portFlag('--port', bad), /--port must be a port number/, bad);
});

test('the median is the middle value, or the mean of the middle two; the percentile is the nearest rank, always one of the values', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100 .. 1, unsorted
  assert.equal(percentile(values, 0.99), 99);
  assert.equal(percentile(values, 0.5), 50);
  assert.equal(percentile(values, 0), 1);
  assert.equal(percentile(values, 1), 100);
  assert.equal(percentile([10, 20, 30, 40], 0.5), 20, 'nearest rank: ceil(0.5 × 4) = the 2nd value');
  assert.equal(percentile([7], 0.9), 7);
  assert.ok(Number.isNaN(percentile([], 0.5)));
});
