import type { DialectName, SqlExecutor } from '@sheaf/core';
import { readClassicMysql } from './classic-mysql.js';
import { readClassicPostgres } from './classic-postgres.js';

/** A Flickr-classic ticket table: its name as the server takes it, and its id column. */
export interface ClassicTable {
  readonly table: string;
  readonly column: string;
}

/** A value known to belong to the server's series, and what it is, for messages. */
export interface HandedOut {
  readonly what: string;
  readonly value: bigint;
}

/** What a Flickr-classic ticket server says about the tickets it handed out. */
export interface ClassicReading {
  /** The table as the server names it. */
  readonly table: string;
  /** What keeps the counter: the storage engine (MyISAM, Aria, InnoDB) or `sequence <name>`. */
  readonly counter: string;
  /** AUTO_INCREMENT (the next value) on MySQL; the sequence's last value on PostgreSQL (none before its first). */
  readonly counterValue: bigint | undefined;
  /** max(id) of the rows left: REPLACE deletes the row it replaces, so it can be below what was handed out. */
  readonly maxId: bigint | undefined;
  /** No ticket above it was ever drawn (0: none at all). */
  readonly highest: bigint;
  /** Values of the server's own series, to check the step and offset it is said to have. */
  readonly handedOut: readonly HandedOut[];
  /** The series the server is configured with, where it says (its own words in `source`). */
  readonly configured: { readonly step: number; readonly offset: number; readonly source: string } | undefined;
}

type Reader = (executor: SqlExecutor, table: ClassicTable, server: string) => Promise<ClassicReading>;

const readers: Record<DialectName, Reader> = { mysql: readClassicMysql, postgres: readClassicPostgres };

/**
 * Reads a classic ticket server's counter, its table's highest id and its configured series;
 * UNKNOWN_TABLE or UNSUPPORTED_KEY naming `server` when the table cannot hand out tickets.
 */
export function readClassic(executor: SqlExecutor, table: ClassicTable, server: string): Promise<ClassicReading> {
  return readers[executor.dialect.name](executor, table, server);
}

/** The largest of some bigints (0 for none): the highest ticket any of them shows. */
export function highestOf(values: readonly (bigint | undefined)[]): bigint {
  return values.reduce<bigint>((max, value) => (value !== undefined && value > max ? value : max), 0n);
}

/** A driver's integer (string, number or bigint) as a bigint; undefined for NULL. */
export function bigintOf(value: unknown): bigint | undefined {
  if (value === null || value === undefined) return undefined;
  return BigInt(value as string | number | bigint);
}
