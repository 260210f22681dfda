/** A mistake in how the command was called (exit code 2), as opposed to a failure doing it (1). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
