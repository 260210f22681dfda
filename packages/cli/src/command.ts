import { type Args, type OptionSpec, parse } from './args.js';
import type { Io } from './io.js';

/** One `sheaf` subcommand. */
export interface Command {
  readonly name: string;
  /** One line for `sheaf --help`. */
  readonly summary: string;
  /** Runs with the arguments after the command name; throws a UsageError, a SheafError or any error. */
  run(argv: readonly string[], io: Io): Promise<void>;
}

interface CommandDefinition {
  readonly name: string;
  readonly summary: string;
  /** The full `--help` text, usage line first. */
  readonly help: string;
  readonly options: OptionSpec;
  readonly positionals?: boolean;
  run(args: Args, io: Io): Promise<void>;
}

/** A command that parses its flags strictly and answers `--help` before anything else. */
export function defineCommand(definition: CommandDefinition): Command {
  return {
    name: definition.name,
    summary: definition.summary,
    async run(argv, io) {
      const args = parse(argv, definition.options, definition.positionals ?? false);
      if (args.values.help === true) {
        io.out(`${definition.help.trim()}\n`);
        return;
      }
      await definition.run(args, io);
    },
  };
}
