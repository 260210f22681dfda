/** Where a migration writes: the plan and results to `out`, progress to `err` (a CLI's stdout and stderr). */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}
