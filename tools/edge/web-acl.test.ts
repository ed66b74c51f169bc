import assert from 'node:assert/strict';
import { test } from 'node:test';
import { iso3166Alpha2 } from './countries';
import { CountryError, applyChange, describeChange, parametersFrom, parseCountries, rulesFor, templateDefaults, type EdgeParameters } from './web-acl';

const deployed: EdgeParameters = parametersFrom({ EnvironmentName: 'kiosk-prod' });

test('the kit deploys off: the rate rule counts, there is no country rule', () => {
  assert.deepEqual(templateDefaults(), {
    GeoRuleAction: 'count',
    GeoCountries: '',
    RateLimitAction: 'count',
    RateLimitPer5Min: '2000',
  });
  const rules = rulesFor(deployed);
  assert.deepEqual(
    rules.map((r) => [r.Name, r.Action]),
    [['rate-per-client-ip', { Count: {} }]],
  );
  assert.deepEqual(rules[0]!.Statement, { RateBasedStatement: { Limit: 2000, EvaluationWindowSec: 300, AggregateKeyType: 'IP' } });
});

test('block-countries FI,SE flips the country rule from count to block; unblock-countries flips it back and keeps counting them', () => {
  const blocked = applyChange(deployed, { kind: 'block-countries', countries: parseCountries('FI,SE') });
  const geo = (p: EdgeParameters) => rulesFor(p).find((r) => r.Name === 'countries');
  assert.deepEqual(geo(blocked), {
    Name: 'countries',
    Priority: 1,
    Action: { Block: {} },
    Statement: { GeoMatchStatement: { CountryCodes: ['FI', 'SE'] } },
    VisibilityConfig: { SampledRequestsEnabled: true, CloudWatchMetricsEnabled: true, MetricName: 'kiosk-edge-kiosk-prod-countries' },
  });
  const unblocked = applyChange(blocked, { kind: 'unblock-countries' });
  assert.deepEqual(geo(unblocked)!.Action, { Count: {} });
  assert.deepEqual(geo(unblocked)!.Statement, { GeoMatchStatement: { CountryCodes: ['FI', 'SE'] } });
  // Blocking again after counting, and the rate rule untouched all along.
  assert.deepEqual(geo(applyChange(unblocked, { kind: 'block-countries', countries: ['SE'] }))!.Action, { Block: {} });
  for (const p of [blocked, unblocked]) assert.deepEqual(rulesFor(p)[0]!.Action, { Count: {} });

  const text = describeChange(deployed, blocked).join('\n');
  assert.match(text, /GeoRuleAction: count -> block/);
  assert.match(text, /GeoCountries: \(empty\) -> FI,SE/);
  assert.match(text, /rules after:\n.*\n {2}countries: BLOCK requests from FI, SE/);
  assert.deepEqual(describeChange(blocked, blocked), ['no change: the stack already has these parameters']);
});

test('rate-limit block switches the per-IP rule, with a new limit if given', () => {
  const limited = applyChange(deployed, { kind: 'rate-limit', action: 'block', limitPer5Min: 500 });
  const [rate] = rulesFor(limited);
  assert.deepEqual(rate!.Action, { Block: {} });
  assert.equal((rate!.Statement.RateBasedStatement as { Limit: number }).Limit, 500);
  assert.deepEqual(rulesFor(applyChange(limited, { kind: 'rate-limit', action: 'count' }))[0]!.Action, { Count: {} });
});

test('countries: ISO 3166-1 alpha-2 codes, any case, deduplicated; anything else is refused by name', () => {
  assert.deepEqual(parseCountries('se, fi,SE'), ['FI', 'SE']);
  for (const [bad, named] of [
    ['UK', '"UK"'],
    ['FIN', '"FIN"'],
    ['FI,XX', '"XX"'],
    ['EU', '"EU"'],
    ['F1', '"F1"'],
  ]) {
    assert.throws(
      () => parseCountries(bad!),
      (e: Error) => e instanceof CountryError && e.message.includes(named!),
      bad,
    );
  }
  assert.throws(() => parseCountries(' , '), /name at least one country/);
});

test('the code list: 249 codes, every one a region ICU names, none an alias of another', () => {
  assert.equal(iso3166Alpha2.size, 249);
  const names = new Intl.DisplayNames(['en'], { type: 'region' });
  for (const code of iso3166Alpha2) {
    assert.match(code, /^[A-Z]{2}$/);
    assert.notEqual(names.of(code), code, `${code} is a region ICU knows`);
    assert.equal(Intl.getCanonicalLocales(`und-${code}`)[0], `und-${code}`, `${code} is not a withdrawn alias`);
  }
});

test('stack parameters read back as CloudFormation and as moto give them', () => {
  assert.deepEqual(parametersFrom({ EnvironmentName: 'p', GeoRuleAction: 'block', GeoCountries: 'FI,SE' }).GeoCountries, ['FI', 'SE']);
  assert.deepEqual(parametersFrom({ EnvironmentName: 'p', GeoRuleAction: 'block', GeoCountries: "['FI', 'SE']" }).GeoCountries, ['FI', 'SE']);
  assert.throws(() => parametersFrom({ EnvironmentName: 'p', GeoRuleAction: 'drop' }), /GeoRuleAction is "drop"/);
});
