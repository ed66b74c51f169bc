// What `npm test` runs before the tests: the build, the three type checks, Prettier's check and
// ESLint, as many at a time as the machine has cores (two here) rather than one after another.
// They share nothing but the files they read (the build writes dist/, which none of the others
// reads). One after another they took about 125 s here (timed one by one), ESLint's type-aware
// rules 70 s of it: with ESLint on one core and the rest on the other, about the time ESLint
// takes alone. Each one's output is printed whole when it ends, with its wall time, so two never
// interleave; the run fails if any failed, naming them.
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readCommandLine, refuse } from './cli';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);

export interface Check {
  readonly name: string;
  readonly command: readonly string[];
}

// Longest first (seconds here: ESLint 70, the type checks 30, Prettier 14, the build 11), so the
// last to start are the short ones. The same commands as npm run lint, typecheck and build.
const checks: readonly Check[] = [
  { name: 'ESLint', command: [bin('eslint'), '--max-warnings', '0', '.'] },
  { name: 'type check: tests, scripts and tools', command: [bin('tsc'), '--noEmit', '-p', 'tsconfig.json'] },
  { name: 'type check: server', command: [bin('tsc'), '--noEmit', '-p', 'tsconfig.server.json'] },
  { name: 'type check: browser', command: [bin('tsc'), '--noEmit', '-p', 'tsconfig.browser.json'] },
  { name: 'Prettier', command: [bin('prettier'), '--check', '.'] },
  { name: 'build', command: [bin('webpack'), '--mode', 'production'] },
];

const usage = `Usage: tsx scripts/checks.ts [--concurrency N]

Builds, type-checks (browser, server, the rest) and lints (Prettier, then ESLint's rules) the
repository, N at a time, and prints each one's output when it ends. Exits 1 if any failed.

  --concurrency N  checks run at once (default: the machine's cores, at least 1)`;

export interface Outcome {
  readonly name: string;
  readonly ok: boolean;
  readonly seconds: number;
}

function run(check: Check, log: (text: string) => void): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(check.command[0]!, check.command.slice(1), { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
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
  console.log(`checks: ${checks.map(({ name }) => name).join(', ')}; ${raw} at a time`);
  const started = performance.now();
  const outcomes = await runChecks(checks, Number(raw));
  const failed = outcomes.filter(({ ok }) => !ok).map(({ name }) => name);
  const wall = ((performance.now() - started) / 1000).toFixed(0);
  console.log(failed.length === 0 ? `checks: all ${checks.length} passed in ${wall} s` : `checks: ${failed.join(', ')} FAILED (${wall} s)`);
  return failed.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) process.exitCode = await main();
