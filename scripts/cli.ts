// The command line, the same way in every command: `--help` prints the usage and exits 0, a
// flag the command does not know (or a bad value) prints what is wrong and the usage and exits
// 2, so a mistyped flag never runs anything.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<T extends Options, P extends boolean> = ReturnType<
  typeof parseArgs<{ options: T & { help: { type: 'boolean'; short: 'h' } }; allowPositionals: P; strict: true }>
>;

export interface CommandLine<T extends Options, P extends boolean> {
  /** The command's name, as its messages start ("bundle: ..."). */
  name: string;
  usage: string;
  options: T;
  allowPositionals?: P;
  args?: string[];
}

/** Parsed flags (and positionals), or the exit code when the command must stop here. */
export function readCommandLine<T extends Options, P extends boolean = false>(
  command: CommandLine<T, P>,
): { ok: true; values: Parsed<T, P>['values']; positionals: string[] } | { ok: false; exitCode: 0 | 2 } {
  let parsed: Parsed<T, P>;
  try {
    parsed = parseArgs({
      args: command.args ?? process.argv.slice(2),
      options: { ...command.options, help: { type: 'boolean', short: 'h' } } as T & { help: { type: 'boolean'; short: 'h' } },
      allowPositionals: (command.allowPositionals ?? false) as P,
      strict: true,
    });
  } catch (error) {
    console.error(`${command.name}: ${(error as Error).message}\n\n${command.usage}`);
    return { ok: false, exitCode: 2 };
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(command.usage);
    return { ok: false, exitCode: 0 };
  }
  return { ok: true, values: parsed.values, positionals: parsed.positionals };
}
