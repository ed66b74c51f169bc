import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clock, parseDuration, span } from './duration';
import { parseProfile, parseProfileCsv } from './profile';

describe('profiles', () => {
  test('steady, step and ramp', () => {
    const steady = parseProfile('steady:1000');
    assert.deepEqual([steady.rateAt(0), steady.rateAt(5000), steady.riseAtS, steady.defaultDurationS], [1000, 1000, null, 3600]);
    const step = parseProfile('step:1000:3000@10m');
    assert.deepEqual([step.rateAt(599), step.rateAt(600), step.riseAtS, step.defaultDurationS], [1000, 3000, 600, 2400]);
    const ramp = parseProfile('ramp:1000:3000@5m-15m');
    assert.deepEqual([ramp.rateAt(299), ramp.rateAt(300), ramp.rateAt(600), ramp.rateAt(900), ramp.riseAtS], [1000, 1000, 2000, 3000, 300]);
    assert.equal(parseProfile('step:3000:1000@10m').riseAtS, null);
  });

  test('bad specs say what is expected', () => {
    assert.throws(() => parseProfile('spike:3000'), /expected steady:RATE, step:FROM:TO@TIME or ramp:FROM:TO@START-END/);
    assert.throws(() => parseProfile('step:1000:lots@10m'), /"lots" is not a rate/);
    assert.throws(() => parseProfile('ramp:1:2@10m-5m'), /must end after it starts/);
  });

  test('CSV: per-second or per-minute rows, each rate held until the next row; header and comments skipped', () => {
    const csv = parseProfileCsv('# election night\ntime,views_per_s\n0,1000\n60,1100\n10m,3000\n11m,2900\n', 'night.csv');
    assert.deepEqual([csv.rateAt(0), csv.rateAt(59), csv.rateAt(60), csv.rateAt(599), csv.rateAt(600), csv.rateAt(5000)], [1000, 1000, 1100, 1100, 3000, 2900]);
    // 1,100 is within 1.25× of 1,000; 3,000 is the rise. Default length: the last row plus the last gap.
    assert.deepEqual([csv.riseAtS, csv.defaultDurationS], [600, 720]);
    const perMinute = parseProfileCsv('time,views_per_min\n0,60000\n1m,180000\n', 'cloudwatch.csv');
    assert.deepEqual([perMinute.rateAt(0), perMinute.rateAt(60)], [1000, 3000]);
  });

  test('CSV errors name the line', () => {
    assert.throws(() => parseProfileCsv('10,1000\n', 'a.csv'), /a\.csv line 1: the first row must be at time 0/);
    assert.throws(() => parseProfileCsv('0,1000\n0,2000\n', 'a.csv'), /a\.csv line 2: times must increase/);
    assert.throws(() => parseProfileCsv('0,many\n', 'a.csv'), /a\.csv line 1: "many" is not a rate/);
    assert.throws(() => parseProfileCsv('# nothing\n', 'a.csv'), /a\.csv: no rows/);
  });

  test('durations and their display', () => {
    assert.deepEqual([parseDuration('150', 'x'), parseDuration('90s', 'x'), parseDuration('2.5m', 'x'), parseDuration('1h', 'x')], [150, 90, 150, 3600]);
    assert.throws(() => parseDuration('soon', '--boot'), /--boot: "soon" is not a duration/);
    assert.deepEqual([clock(870), span(270), span(300), span(45)], ['14:30', '4 min 30 s', '5 min', '45 s']);
  });
});
