// What `npm test` runs before the tests: package.json's `build`, `typecheck` and `lint` scripts,
// each split at `&&` into its commands (the build, the three type checks, Prettier's check and
// ESLint), as many at a time as the machine has cores (two here) rather than one after another.
// The commands are read from package.json, so `npm run lint` and this run cannot drift apart;
// they run with node_modules/.bin first on the PATH, as npm runs them. They share nothing but
// the files they read (the build writes dist/, which none of the others reads). One after
// another they took about 125 s here (timed one by one), ESLint's type-aware rules 70 s of it:
// with ESLint on one core and the rest on the other, about the time ESLint takes alone. Each
// one's output is printed whole when it ends, with its wall time, so two never interleave; the
// run fails if any failed, naming them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readCommandLine, refuse } from './cli';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Check {
  readonly name: string;
  readonly command: readonly string[];
}

/** package.json's scripts that `npm test` checks before its tests, in this order before sorting. */
export const checkedScripts = ['build', 'typecheck', 'lint'] as const;

// The seconds each program took here, only to start the longest first (so the last to start are
// the short ones); a program not named here starts last. Not a list of the checks: those come
// from package.json.
const secondsHere: Readonly<Record<string, number>> = { eslint: 70, tsc: 20, prettier: 14, webpack: 11 };

/**
 * The checks `scripts` (package.json's) names: each of `names` split at `&&` into plain commands,
 * longest first. Throws naming the script when one is missing or uses shell syntax beyond `&&`
 * (quotes, pipes, `;` or a lone `&`, redirections, variables), which this does not run through a shell.
 */
export function checksFrom(scripts: Readonly<Record<string, string>>, names: readonly string[] = checkedScripts): Check[] {
  const list = names.flatMap((name) => {
    const script = scripts[name];
    if (script === undefined) throw new Error(`package.json has no "${name}" script to check`);
    if (/['"`|;&<>$()\\]/.test(script.replaceAll('&&', ''))) {
      throw new Error(`package.json's "${name}" script is not plain commands joined by &&: ${script}`);
    }
    return script.split('&&').map((part) => {
      const command = part.trim().split(/\s+/);
      if (command[0] === '') throw new Error(`package.json's "${name}" script has an empty command: ${script}`);
      return { name: `${name}: ${command.join(' ')}`, command };
    });
  });
  return list.sort((a, b) => (secondsHere[b.command[0]!] ?? 0) - (secondsHere[a.command[0]!] ?? 0));
}

const usage = `Usage: tsx scripts/checks.ts [--concurrency N]

Runs the commands of package.json's build, typecheck and lint scripts (each split at &&: the
build, three type checks, Prettier's check and ESLint), N at a time, and prints each one's
output when it ends. Exits 1 if any failed.

  --concurrency N  checks run at once (default: the machine's cores, at least 1)`;

export interface Outcome {
  readonly name: string;
  readonly ok: boolean;
  readonly seconds: number;
}

function run(check: Check, log: (text: string) => void): Promise<Outcome> {
  const started = performance.now();
  // As npm runs a script: the project's own tools first (spawn looks a command up on env.PATH).
  const env = { ...process.env, PATH: [path.join(root, 'node_modules', '.bin'), process.env.PATH].join(path.delimiter) };
  return new Promise((resolve) => {
    const child = spawn(check.command[0]!, check.command.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const finish = (ok: boolean, more = '') => {
      const seconds = (performance.now() - started) / 1000;
      const text = (output + more).trimEnd();
      log(`checks: ${check.name} ${ok ? 'passed' : 'FAILED'} in ${seconds.toFixed(0)} s${text ? `\n${text}` : ''}`);
      resolve({ name: check.name, ok, seconds });
    };
    child.once('error', (error) => finish(false, `\n${error.message}`));
    child.once('close', (code) => finish(code === 0));
  });
}

/** Runs `list`, `lanes` at a time, each one's output logged whole as it ends; what each came to, in the order they ended. */
export async function runChecks(list: readonly Check[], lanes: number, log: (text: string) => void = console.log): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const lane = async () => {
    while (next < list.length) outcomes.push(await run(list[next++]!, log));
  };
  await Promise.all(Array.from({ length: Math.min(lanes, list.length) }, lane));
  return outcomes;
}

async function main(): Promise<number> {
  const command = { name: 'checks', usage };
  const line = readCommandLine({ ...command, options: { concurrency: { type: 'string' } } });
  if (!line.ok) return line.exitCode;
  const raw = line.values.concurrency ?? String(Math.max(1, os.availableParallelism()));
  if (!/^\d+$/.test(raw) || Number(raw) < 1) return refuse(command, `--concurrency must be a whole number, 1 or more, got "${raw}"`);
  let checks: Check[];
  try {
    checks = checksFrom((JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
  } catch (error) {
    console.error(`checks: ${(error as Error).message}`);
    return 1;
  }
  console.log(`checks: ${checks.map(({ name }) => name).join(', ')}; ${raw} at a time`);
  const started = performance.now();
  const outcomes = await runChecks(checks, Number(raw));
  const failed = outcomes.filter(({ ok }) => !ok).map(({ name }) => name);
  const wall = ((performance.now() - started) / 1000).toFixed(0);
  console.log(failed.length === 0 ? `checks: all ${checks.length} passed in ${wall} s` : `checks: ${failed.join(', ')} FAILED (${wall} s)`);
  return failed.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) process.exitCode = await main();
