import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The environment a build runs in: the command's own (`Io.env`). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Whether `path` is a file we may run. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where `name` runs from: itself when it is a path, else the first match on `env.PATH`. */
export function findProgram(name: string, env: Env): string | undefined {
  if (name.includes('/')) return isExecutable(name) ? name : undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && isAbsolute(dir) && isExecutable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** What a finished program printed, and its exit status (0 when it succeeded). */
export interface ProgramRun {
  readonly status: number;
  readonly output: string;
}

/** Runs a program to its end; its stdout and stderr in one text, in the order they came, as a terminal shows them. */
export function runProgram(file: string, args: readonly string[], env: Env, cwd?: string): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const child = spawn(file, [...args], { env: { ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', (error) => resolve({ status: 127, output: `${Buffer.concat(chunks)}${error.message}` }));
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString();
      resolve({ status: code ?? 128, output: signal ? `${output}\n(killed by ${signal})` : output });
    });
  });
}
