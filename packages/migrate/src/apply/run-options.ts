import type { SqlExecutor } from '@sheaf/core';
import type { StepBoundary } from './boundaries.js';
import { type Fingerprinter, fingerprinterOf } from './fingerprinter.js';

/** How a migration runs, resumes or is aborted: checks, progress, and where it may be stopped. */
export interface RunOptions {
  /** Row count and checksum of each table; default: the dialect's own (`fingerprint`). */
  readonly fingerprint?: Fingerprinter;
  /** Called with each progress line (ending in a newline); default: none. */
  readonly progress?: (line: string) => void;
  /**
   * Stops the run at the next step boundary once aborted, with MIGRATION_INTERRUPTED: on
   * PostgreSQL the transaction rolls back; on MySQL/MariaDB the journal records every finished step.
   */
  readonly signal?: AbortSignal;
  /** Awaited at each step boundary, before and after each statement (tests stop the process there). */
  readonly boundary?: (point: StepBoundary) => void | Promise<void>;
  /** MySQL/MariaDB: how long to wait for another session's migration lock (default 10 s). */
  readonly lockWaitSeconds?: number;
}

/** RunOptions with every default filled in. */
export interface Settled {
  readonly fingerprint: Fingerprinter;
  readonly progress: (line: string) => void;
  readonly signal: AbortSignal | undefined;
  readonly boundary: (point: StepBoundary) => void | Promise<void>;
  readonly lockWaitSeconds: number;
}

/** Fills in the defaults of `options` for a run on `executor`. */
export function settle(executor: SqlExecutor, options: RunOptions): Settled {
  return {
    fingerprint: options.fingerprint ?? fingerprinterOf(executor),
    progress: options.progress ?? (() => undefined),
    signal: options.signal,
    boundary: options.boundary ?? (() => undefined),
    lockWaitSeconds: options.lockWaitSeconds ?? 10,
  };
}
