/** Where a command writes, and the environment it reads: the process's, or a test's. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** The process's own streams and environment. */
export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

/** JSON with bigints as decimal strings: ids do not fit a JSON number. */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`;
}
