import type { DialectName, SqlExecutor } from '@sheaf/core';
import { readClassicMysql } from './classic-mysql.js';
import { readClassicPostgres } from './classic-postgres.js';
import type { ClassicReading, ClassicTable } from './classic-types.js';

type Reader = (executor: SqlExecutor, table: ClassicTable, server: string) => Promise<ClassicReading>;

const readers: Record<DialectName, Reader> = { mysql: readClassicMysql, postgres: readClassicPostgres };

/**
 * Reads a classic ticket server's counter, its table's highest id and its configured series;
 * UNKNOWN_TABLE or UNSUPPORTED_KEY naming `server` when the table cannot hand out tickets.
 */
export function readClassic(executor: SqlExecutor, table: ClassicTable, server: string): Promise<ClassicReading> {
  return readers[executor.dialect.name](executor, table, server);
}
