import { readFileSync } from 'node:fs';
import { isSheafError } from '@sheaf/core';
import type { Command } from './command.js';
import { decodeCommand } from './commands/decode.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { encodeCommand } from './commands/encode.js';
import { grantCommand } from './commands/grant.js';
import { installCommand } from './commands/install.js';
import { migrateCommand } from './commands/migrate.js';
import { nativeCommand } from './commands/native.js';
import { repairCounterCommand } from './commands/repair-counter.js';
import { statusCommand } from './commands/status.js';
import { ticketsCommand } from './commands/tickets.js';
import { uninstallCommand } from './commands/uninstall.js';
import type { Io } from './io.js';
import { redactText } from './redact.js';
import { UsageError } from './usage-error.js';

const commands: readonly Command[] = [
  installCommand,
  uninstallCommand,
  statusCommand,
  grantCommand,
  doctorCommand,
  repairCounterCommand,
  decodeCommand,
  encodeCommand,
  migrateCommand,
  ticketsCommand,
  nativeCommand,
  demoCommand,
];

/** Exit codes: 0 success, 1 failure, 2 usage, 130 stopped by SIGINT (sheaf migrate, at a step boundary). */
export const exitCodes = Object.freeze({ ok: 0, failure: 1, usage: 2, interrupted: 130 });

/** Runs `sheaf` with the arguments after the program name; resolves to the exit code. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.err(help());
    return exitCodes.usage;
  }
  if (name === '--help' || name === '-h' || name === 'help') return helpFor(rest[0], io);
  if (name === '--version' || name === '-v') {
    io.out(`${version()}\n`);
    return exitCodes.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.err(`sheaf: unknown command "${name}"; commands: ${commands.map((c) => c.name).join(', ')}\n`);
    return exitCodes.usage;
  }
  try {
    await command.run(rest, io);
    return exitCodes.ok;
  } catch (error) {
    return report(command.name, error, io);
  }
}

// Every message passes through redactText: node's own ("Unexpected argument '<url>'") and a driver's
// may quote a connection URL, password included.
function report(name: string, error: unknown, io: Io): number {
  if (error instanceof UsageError) {
    io.err(redactText(`sheaf ${name}: ${error.message}\nRun "sheaf ${name} --help" for usage.\n`));
    return exitCodes.usage;
  }
  if (isSheafError(error)) {
    io.err(redactText(`${error.message} (${error.code})\n`));
    return isSheafError(error, 'MIGRATION_INTERRUPTED') ? exitCodes.interrupted : exitCodes.failure;
  }
  // Driver errors (a refused connection, a bad password) carry what the user needs in their message.
  // Every failure reads like a SheafError, `sheaf: <message> (<code>)` (docs/cli.md, exit codes):
  // only usage errors name the command, with the pointer to its --help.
  const message = error instanceof Error ? error.message || String(error) : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const text = message.startsWith('sheaf: ') ? message : `sheaf: ${message}`;
  io.err(redactText(`${text}${typeof code === 'string' ? ` (${code})` : ''}\n`));
  return exitCodes.failure;
}

function helpFor(name: string | undefined, io: Io): Promise<number> | number {
  if (name === undefined) {
    io.out(help());
    return exitCodes.ok;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.err(`sheaf: unknown command "${name}"; commands: ${commands.map((c) => c.name).join(', ')}\n`);
    return exitCodes.usage;
  }
  return run([name, '--help'], io);
}

function help(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const lines = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`);
  return `Usage: sheaf <command> [options]

Unique, time-ordered 64-bit ids generated inside your database.

Commands:
${lines.join('\n')}

Run "sheaf <command> --help" for a command's options. Exit codes: 0 success, 1 failure, 2 usage.
`;
}

function version(): string {
  // Read at run time: package.json sits next to both src/ and dist/.
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
