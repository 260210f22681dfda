import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What a `sheaf` process did. */
export interface SheafRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../packages/cli/bin/sheaf.js', import.meta.url));

/**
 * Runs the CLI as a user would: its bin, as its own process, on the build that the test run's
 * global setup brought up to date (test/support/global-setup.ts). DATABASE_URL is cleared unless
 * given, so the caller's environment cannot leak in.
 */
export function sheaf(args: readonly string[], env: Record<string, string> = {}): Promise<SheafRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [bin, ...args],
      {
        cwd: root,
        env: { ...process.env, DATABASE_URL: '', ...env },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : undefined) : 0;
        if (code === undefined) reject(error);
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs the CLI and parses its stdout as JSON, failing with its stderr if it did not exit 0. */
export async function sheafJson<T = Record<string, unknown>>(args: readonly string[]): Promise<T> {
  const run = await sheaf([...args, '--json']);
  if (run.code !== 0) throw new Error(`sheaf ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}
