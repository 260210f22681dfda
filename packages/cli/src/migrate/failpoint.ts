import type { StepBoundary } from '@sheaf/migrate';
import { UsageError } from '../usage-error.js';

/** The environment variable the tests set to stop `sheaf migrate` at one step boundary. */
export const failpointVariable = 'SHEAF_MIGRATE_FAILPOINT';

const pattern = /^(before-step|after-step|before-undo|after-undo):([1-9]\d*)(?::(SIGKILL|SIGINT))?$/;

/**
 * The boundary hook of `SHEAF_MIGRATE_FAILPOINT=<when>:<step>[:SIGKILL|SIGINT]` (docs/development.md):
 * at that boundary the process sends itself the signal (SIGKILL by default), as a crash or a Ctrl-C
 * there would. It only ever stops this process; the journal is what makes that safe. Unset: no hook.
 * A malformed value is a usage error, so a typo never lets a test run to the end unnoticed.
 */
export function failpointOf(
  env: Readonly<Record<string, string | undefined>>,
): ((point: StepBoundary) => Promise<void>) | undefined {
  const raw = env[failpointVariable];
  if (raw === undefined || raw === '') return undefined;
  const match = pattern.exec(raw);
  if (!match) {
    throw new UsageError(
      `${failpointVariable} must be <before-step|after-step|before-undo|after-undo>:<step>[:SIGKILL|SIGINT], not "${raw}"`,
    );
  }
  const [, when, step, signal = 'SIGKILL'] = match;
  return async (point) => {
    if (point.when !== when || point.step !== Number(step)) return;
    if (signal === 'SIGKILL') process.kill(process.pid, 'SIGKILL');
    // Return once our own SIGINT handler has run, as it would have for a Ctrl-C at this moment.
    const delivered = new Promise((resolve) => process.once('SIGINT', resolve));
    process.kill(process.pid, 'SIGINT');
    await delivered;
  };
}
