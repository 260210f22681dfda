/**
 * One numbered SQL file of a dialect, embedded at build time. Released files never change: the
 * installer records each checksum and refuses a database whose record disagrees.
 */
export interface SqlFile {
  readonly version: number;
  readonly name: string;
  /** SHA-256 of `sql`, hex. */
  readonly checksum: string;
  readonly sql: string;
}

/** Statements in our SQL files are separated by this comment, since drivers take one at a time. */
const breakMarker = /^-- sheaf:break\s*$/m;

/** The statements of a file, without empty pieces. */
export function statementsOf(sql: string): string[] {
  return sql
    .split(breakMarker)
    .map((statement) => statement.trim())
    .filter((statement) => statement.replace(/^--.*$/gm, '').trim() !== '');
}
