import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { defaultFeedPath } from './feed';
import { rateLabel, readOptions, UsageError } from './options';

const db = '/stores/kiosk.sqlite';

test('--help returns null; the default is a stress run against localhost:3000 with the generated feed', () => {
  assert.equal(readOptions(['--help'], db), null);
  const o = readOptions([], db)!;
  assert.equal(o.simulationClass, 'kiosk.loadtest.StressSimulation');
  assert.deepEqual(o.properties, {
    baseUrl: 'http://localhost:3000',
    urlFeed: 'article-urls.csv',
    'gatling.http.requestTimeout': '10000',
    rps: '100',
    reachInSec: '30',
    holdForMin: '2',
  });
  assert.equal(o.feed, defaultFeedPath);
  assert.equal(o.feedSourceDb, db);
  assert.equal(o.rewriteFeed, false);
});

test('capacity: rates, hold and warm-up become system properties, and steps know their length', () => {
  const o = readOptions(['--simulation', 'capacity', '--rates', '100, 200,12.5', '--step-hold', '20', '--warm-up', '0', '--base-url', 'http://127.0.0.1:8080/'], db)!;
  assert.equal(o.simulationClass, 'kiosk.loadtest.CapacityStepSimulation');
  assert.equal(o.baseUrl, 'http://127.0.0.1:8080');
  assert.equal(o.properties.rates, '100,200,12.5');
  assert.equal(o.properties.holdSec, '20');
  assert.equal(o.properties.warmUpSec, '0');
  assert.equal(o.properties.warmUpRps, '50');
  assert.deepEqual([...o.stepSeconds], [['100 req/s', 20], ['200 req/s', 20], ['12.5 req/s', 20]]);
});

test('journey: think times; stress: users; --feed is used as given, --db rewrites the default feed', () => {
  const journey = readOptions(['--simulation', 'journey', '--think', '0.1-0.5', '--hold', '0.2', '--feed', 'my.csv'], db)!;
  assert.equal(journey.properties.thinkMinSec, '0.1');
  assert.equal(journey.properties.thinkMaxSec, '0.5');
  assert.equal(journey.properties.holdForMin, '0.2');
  assert.equal(journey.properties.urlFeed, path.resolve('my.csv'));
  assert.equal(journey.feedSourceDb, null);
  const stress = readOptions(['--users', '40', '--db', 'other.sqlite', '--share-connections'], db)!;
  assert.equal(stress.properties.users, '40');
  assert.equal(stress.properties.shareConnections, 'true');
  assert.equal(stress.feedSourceDb, path.resolve('other.sqlite'));
  assert.equal(stress.rewriteFeed, true);
});

test('bad values and flags of another simulation are usage errors that name the flag', () => {
  const cases: [string[], RegExp][] = [
    [['--simulation', 'soak'], /--simulation must be one of stress, capacity, journey/],
    [['--rps', '0'], /--rps must be a positive number/],
    [['--rps', 'fast'], /--rps must be a positive number/],
    [['--rates', '100'], /--rates applies to --simulation capacity, not stress/],
    [['--simulation', 'capacity', '--rps', '5'], /--rps applies to --simulation stress or journey/],
    [['--simulation', 'capacity', '--rates', '100,,200'], /--rates must be a positive number/],
    [['--simulation', 'capacity', '--rates', '100,100'], /names a rate twice/],
    [['--simulation', 'journey', '--think', '9-2'], /MIN must not be above MAX/],
    [['--users', '2.5'], /--users must be a whole number/],
    [['--base-url', 'localhost:3000'], /--base-url must be http or https/],
    [['--base-url', 'not a url'], /--base-url must be an http\(s\) URL/],
    [['--feed', 'a.csv', '--db', 'b.sqlite'], /give one or the other/],
  ];
  for (const [args, message] of cases) assert.throws(() => readOptions(args, db), (e: Error) => e instanceof UsageError && message.test(e.message), args.join(' '));
  assert.throws(() => readOptions(['--bogus'], db), (e: Error) => e instanceof UsageError && /Unknown option '--bogus'/.test(e.message));
});

test('rate labels are the step names CapacityStepSimulation gives (Settings.rateLabel)', () => {
  assert.equal(rateLabel(200), '200 req/s');
  assert.equal(rateLabel(12.5), '12.5 req/s');
});
