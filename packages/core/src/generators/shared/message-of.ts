/** An error's message for another error's message or a status report; any thrown value works. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
