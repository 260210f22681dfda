import type { Io } from '../io.js';

/** The exit code of a run stopped by SIGINT (128 + 2, as shells report it). */
export const interruptedExitCode = 130;

/**
 * Runs `work` with SIGINT turned into an abort of its signal: the migration stops at the next step
 * boundary, with its journal consistent. A second SIGINT exits at once, which is as safe as a kill:
 * the next run checks the catalog for the statement that was running.
 */
export async function withInterrupt<T>(io: Io, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) {
      io.err('sheaf migrate: interrupted again: exiting now; run the same command to resume or --abort to undo\n');
      process.exit(interruptedExitCode);
    }
    io.err('sheaf migrate: interrupted: stopping after the statement that is running (Ctrl-C again exits at once)\n');
    controller.abort(new Error('SIGINT'));
  };
  process.on('SIGINT', onSigint);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
