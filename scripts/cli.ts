// The command line, the same way in every command of scripts/ and tools/ (the tools get it
// through @kiosk/surface): `--help` prints the usage and exits 0; a flag the command does not
// know, a malformed one or a bad value prints what is wrong and the usage and exits 2, so a
// mistyped flag never runs anything. One parser (node:util's parseArgs, strict) behind it all.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type WithHelp<T extends Options> = T & { help: { type: 'boolean'; short: 'h' } };
type Parsed<T extends Options, P extends boolean> = ReturnType<typeof parseArgs<{ options: WithHelp<T>; allowPositionals: P; strict: true }>>;

/** What is wrong with a command line: the command prints it with its usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface CommandLine<T extends Options, P extends boolean> {
  /** The command's name, as its messages start ("bundle: ..."). */
  name: string;
  usage: string;
  options: T;
  allowPositionals?: P;
  args?: string[];
}

export interface ParsedCommandLine<T extends Options, P extends boolean> {
  values: Parsed<T, P>['values'];
  positionals: string[];
}

/**
 * The flags (with -h/--help added) and positionals of `args`; null when --help was asked. A flag
 * the command does not know, or one without its value, is a UsageError. Prints nothing.
 */
export function parseCommandLine<T extends Options, P extends boolean = false>(
  args: readonly string[],
  spec: { options: T; allowPositionals?: P },
): ParsedCommandLine<T, P> | null {
  let parsed: Parsed<T, P>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } } as WithHelp<T>,
      allowPositionals: (spec.allowPositionals ?? false) as P,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if ((parsed.values as { help?: boolean }).help) return null;
  return { values: parsed.values, positionals: parsed.positionals };
}

/** Prints a usage error as every command does: its name, what is wrong, the usage. The exit code is 2. */
export function refuse(command: { name: string; usage: string }, message: string): 2 {
  console.error(`${command.name}: ${message}\n\n${command.usage}`);
  return 2;
}

/** Parsed flags (and positionals), or the exit code when the command must stop here (the usage printed). */
export function readCommandLine<T extends Options, P extends boolean = false>(
  command: CommandLine<T, P>,
): ({ ok: true } & ParsedCommandLine<T, P>) | { ok: false; exitCode: 0 | 2 } {
  let parsed: ParsedCommandLine<T, P> | null;
  try {
    parsed = parseCommandLine(command.args ?? process.argv.slice(2), command);
  } catch (error) {
    return { ok: false, exitCode: refuse(command, (error as Error).message) };
  }
  if (parsed === null) {
    console.log(command.usage);
    return { ok: false, exitCode: 0 };
  }
  return { ok: true, ...parsed };
}

/**
 * Runs a command's main and sets the exit code it returns; a UsageError thrown anywhere in it
 * (a bad value found late) is printed with the usage and exits 2. Other errors propagate.
 */
export async function runCommand(command: { name: string; usage: string }, main: () => number | Promise<number>): Promise<void> {
  try {
    process.exitCode = await main();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.exitCode = refuse(command, error.message);
  }
}

/** A flag's number, when given: null without it; a UsageError naming the flag and `rule` when `check` refuses it. */
export function numberFlag(flag: string, raw: string | undefined, check: (n: number) => boolean, rule: string): number | null {
  if (raw === undefined) return null;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || !check(value)) throw new UsageError(`${flag} must be ${rule}, got "${raw}"`);
  return value;
}

/** A flag's whole number from min to max, or null without it. */
export function wholeNumberFlag(flag: string, raw: string | undefined, min: number, max: number): number | null {
  if (raw !== undefined && !/^\d+$/.test(raw.trim())) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return numberFlag(flag, raw, (n) => n >= min && n <= max, `a whole number from ${min} to ${max}`);
}

/** A flag's port number (1-65535), or null without it. */
export function portFlag(flag: string, raw: string | undefined): number | null {
  if (raw !== undefined && !/^\d+$/.test(raw.trim())) throw new UsageError(`${flag} must be a port number, got "${raw}"`);
  return numberFlag(flag, raw, (n) => n >= 1 && n <= 65535, 'a port number');
}
