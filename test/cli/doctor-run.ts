import { sheaf } from './run-sheaf.js';

/** One check of `sheaf doctor --json`. */
export interface CheckJson {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  message: string;
  details?: Record<string, unknown>;
}

/** The report of `sheaf doctor --json`. */
export interface DoctorJson {
  ok: boolean;
  summary: { ok: number; warn: number; fail: number };
  databases: { database: string; dialect: string; checks: CheckJson[] }[];
  idSpace?: { databases: string[]; checks: CheckJson[] };
}

/** Runs `sheaf doctor --json` on the URLs: the exit code, the parsed report and stderr. */
export async function doctor(urls: readonly string[]): Promise<{ code: number; report: DoctorJson; stderr: string }> {
  const run = await sheaf(['doctor', ...urls.flatMap((url) => ['--url', url]), '--json']);
  return { code: run.code, report: JSON.parse(run.stdout) as DoctorJson, stderr: run.stderr };
}
