// The DDoS kit's switches as data: the stack's parameters (cloudformation/edge-protection.yaml),
// what each command changes in them, and the web ACL's rules the template makes of them, so a
// dry run shows the change in the template's own terms and the tests check it without AWS.
import fs from 'node:fs';
import path from 'node:path';
import { repositoryRoot } from '@kiosk/surface';
import { parse } from 'yaml';
import { iso3166Alpha2 } from './countries';

export const templatePath = path.join(repositoryRoot, 'cloudformation/edge-protection.yaml');
/** A web ACL for CloudFront exists only in us-east-1. */
export const edgeRegion = 'us-east-1';

export type RuleAction = 'count' | 'block';

export interface EdgeParameters {
  EnvironmentName: string;
  GeoRuleAction: RuleAction;
  /** Empty: no country rule at all. */
  GeoCountries: string[];
  RateLimitAction: RuleAction;
  RateLimitPer5Min: number;
}

export class CountryError extends Error {}

/** "fi, SE" → ['FI', 'SE']; anything that is not an assigned ISO 3166-1 alpha-2 code is refused by name. */
export function parseCountries(raw: string): string[] {
  const codes = raw
    .split(',')
    .map((c) => c.trim().toUpperCase())
    .filter((c) => c !== '');
  if (codes.length === 0) throw new CountryError('name at least one country: ISO 3166-1 alpha-2 codes separated by commas, e.g. FI,SE');
  const bad = codes.filter((c) => !iso3166Alpha2.has(c));
  if (bad.length > 0) {
    throw new CountryError(
      `not ISO 3166-1 alpha-2 country codes: ${bad.map((c) => `"${c}"`).join(', ')} (two letters, e.g. FI for Finland, SE for Sweden, GB, not UK, for the United Kingdom)`,
    );
  }
  // WAF takes at most 250 codes in one statement; there are 249.
  return [...new Set(codes)].sort();
}

export type Change =
  { kind: 'block-countries'; countries: string[] } | { kind: 'unblock-countries' } | { kind: 'rate-limit'; action: RuleAction; limitPer5Min?: number };

/** The parameters after a command. Unblocking keeps the countries, counted: the flood's share stays visible. */
export function applyChange(current: EdgeParameters, change: Change): EdgeParameters {
  switch (change.kind) {
    case 'block-countries':
      return { ...current, GeoRuleAction: 'block', GeoCountries: change.countries };
    case 'unblock-countries':
      return { ...current, GeoRuleAction: 'count' };
    case 'rate-limit':
      return { ...current, RateLimitAction: change.action, RateLimitPer5Min: change.limitPer5Min ?? current.RateLimitPer5Min };
  }
}

/** CloudFormation's string form of each parameter, as UpdateStack takes and DescribeStacks returns them. */
export function parameterValues(p: EdgeParameters): Record<keyof EdgeParameters, string> {
  return {
    EnvironmentName: p.EnvironmentName,
    GeoRuleAction: p.GeoRuleAction,
    GeoCountries: p.GeoCountries.join(','),
    RateLimitAction: p.RateLimitAction,
    RateLimitPer5Min: String(p.RateLimitPer5Min),
  };
}

function action(value: string | undefined, name: string): RuleAction {
  if (value === 'count' || value === 'block') return value;
  throw new Error(`the stack's ${name} is "${value}", neither count nor block`);
}

/** Reads DescribeStacks' parameters (missing ones take the template's defaults). */
export function parametersFrom(values: Record<string, string | undefined>, defaults = templateDefaults()): EdgeParameters {
  const get = (name: keyof EdgeParameters) => values[name] ?? defaults[name];
  return {
    EnvironmentName: get('EnvironmentName') ?? '',
    GeoRuleAction: action(get('GeoRuleAction'), 'GeoRuleAction'),
    // CloudFormation returns a list parameter as "FI,SE"; moto (the tests' CloudFormation) as
    // "['FI', 'SE']". Country codes hold neither brackets, quotes nor spaces, so both read alike.
    GeoCountries: (get('GeoCountries') ?? '')
      .replace(/[[\]'"\s]/g, '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean),
    RateLimitAction: action(get('RateLimitAction'), 'RateLimitAction'),
    RateLimitPer5Min: Number(get('RateLimitPer5Min')),
  };
}

type Template = {
  Parameters: Record<string, { Default?: unknown }>;
  Conditions: Record<string, unknown>;
  Resources: Record<string, { Properties: Record<string, unknown> }>;
};

export function loadTemplate(file = templatePath): Template {
  return parse(fs.readFileSync(file, 'utf8')) as Template;
}

export function templateDefaults(template = loadTemplate()): Partial<Record<keyof EdgeParameters, string>> {
  return Object.fromEntries(
    Object.entries(template.Parameters)
      .filter(([, p]) => p.Default !== undefined)
      .map(([name, p]) => [name, String(p.Default)]),
  );
}

const noValue = Symbol('AWS::NoValue');

/**
 * The template's intrinsic functions, evaluated for given parameters as CloudFormation would
 * (only those the template uses: Ref, Fn::If, Fn::Equals, Fn::Not, Fn::Join, Fn::Sub), so the
 * web ACL's rules can be shown and tested for each setting.
 */
export function evaluate(template: Template, p: EdgeParameters, node: unknown = template.Resources): unknown {
  const values = parameterValues(p);
  const ref = (name: string): unknown => {
    if (name === 'AWS::NoValue') return noValue;
    if (name === 'GeoCountries') return p.GeoCountries.length > 0 ? p.GeoCountries : [''];
    if (name in values) return name === 'RateLimitPer5Min' ? p.RateLimitPer5Min : values[name as keyof EdgeParameters];
    throw new Error(`Ref ${name}: not a parameter`);
  };
  const condition = (name: string): boolean => evaluate(template, p, template.Conditions[name]) as boolean;
  const walk = (n: unknown): unknown => {
    if (Array.isArray(n)) return n.map(walk).filter((v) => v !== noValue);
    if (!n || typeof n !== 'object') return n;
    const entries = Object.entries(n);
    if (entries.length === 1) {
      const [key, arg] = entries[0]!;
      if (key === 'Ref') return ref(arg as string);
      if (key === 'Fn::If') {
        const [name, yes, no] = arg as [string, unknown, unknown];
        return walk(condition(name) ? yes : no);
      }
      if (key === 'Fn::Equals') {
        const [a, b] = (arg as unknown[]).map(walk);
        return JSON.stringify(a) === JSON.stringify(b);
      }
      if (key === 'Fn::Not') return !(walk((arg as unknown[])[0]) as boolean);
      if (key === 'Fn::Join') {
        const [separator, list] = arg as [string, unknown];
        return (walk(list) as unknown[]).map(String).join(separator);
      }
      if (key === 'Fn::Sub') return (arg as string).replace(/\$\{([\w:]+)\}/g, (_, name: string) => String(ref(name)));
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, walk(v)]).filter(([, v]) => v !== noValue));
  };
  return walk(node);
}

export interface WebAclRule {
  Name: string;
  Priority: number;
  Action: { Block?: object; Count?: object };
  Statement: Record<string, unknown>;
}

/** The web ACL's rules as the template makes them for these parameters. */
export function rulesFor(p: EdgeParameters, template = loadTemplate()): WebAclRule[] {
  const resources = evaluate(template, p) as Record<string, { Type?: string; Properties: { Rules: WebAclRule[] } }>;
  const acl = Object.values(resources).find((r) => r.Type === 'AWS::WAFv2::WebACL');
  if (!acl) throw new Error(`${path.relative(repositoryRoot, templatePath)} has no AWS::WAFv2::WebACL`);
  return acl.Properties.Rules;
}

/** One line per rule, as an operator reads it. */
export function describeRules(rules: WebAclRule[]): string[] {
  return rules.map((rule) => {
    const verb = rule.Action.Block ? 'BLOCK' : 'count';
    const geo = rule.Statement.GeoMatchStatement as { CountryCodes: string[] } | undefined;
    const rate = rule.Statement.RateBasedStatement as { Limit: number; EvaluationWindowSec: number } | undefined;
    if (geo) return `${rule.Name}: ${verb} requests from ${geo.CountryCodes.join(', ')}`;
    if (rate) return `${rule.Name}: ${verb} a client IP over ${rate.Limit} requests in ${rate.EvaluationWindowSec / 60} minutes`;
    return `${rule.Name}: ${verb}`;
  });
}

/** What a dry run prints: each parameter that changes, then the rules before and after. */
export function describeChange(before: EdgeParameters, after: EdgeParameters, template = loadTemplate()): string[] {
  const a = parameterValues(before);
  const b = parameterValues(after);
  const changed = (Object.keys(b) as (keyof EdgeParameters)[]).filter((k) => a[k] !== b[k]);
  if (changed.length === 0) return ['no change: the stack already has these parameters'];
  return [
    'parameters:',
    ...changed.map((k) => `  ${k}: ${a[k] === '' ? '(empty)' : a[k]} -> ${b[k] === '' ? '(empty)' : b[k]}`),
    'rules now:',
    ...describeRules(rulesFor(before, template)).map((l) => `  ${l}`),
    'rules after:',
    ...describeRules(rulesFor(after, template)).map((l) => `  ${l}`),
  ];
}
