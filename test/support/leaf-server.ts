import mysql from 'mysql2/promise';
import pg from 'pg';
import type { TargetName } from './targets.js';

/** One connection of a Leaf server, through its driver: Leaf's statements and their affected rows. */
export interface RawConnection {
  run(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[]; affected: number }>;
  close(): Promise<void>;
}

/** A connection of its own to the database at `url` (`$n` placeholders on PostgreSQL, `?` on MariaDB). */
export async function rawConnection(target: TargetName, url: string): Promise<RawConnection> {
  if (target === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return {
      async run(sql, params) {
        const result = await client.query(sql, params);
        return { rows: result.rows, affected: result.rowCount ?? 0 };
      },
      close: () => client.end(),
    };
  }
  const connection = await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: true });
  return {
    async run(sql, params) {
      const [result] = await connection.query(sql, params);
      if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], affected: 0 };
      return { rows: [], affected: (result as { affectedRows: number }).affectedRows };
    },
    close: () => connection.end(),
  };
}

/** Meituan Leaf's table (its DDL, with a `version` column for the optimistic variant). */
export function leafTableSql(target: TargetName, table: string, version: boolean): string {
  if (target === 'postgres') {
    return `create table ${table} (
      biz_tag varchar(128) not null default '' primary key,
      max_id bigint not null default 1,
      step int not null,
      description varchar(256) default null,
      update_time timestamp not null default current_timestamp${version ? ',\n      version int not null default 0' : ''}
    )`;
  }
  return `create table ${table} (
    biz_tag varchar(128) not null default '',
    max_id bigint(20) not null default '1',
    step int(11) not null,
    description varchar(256) default null,
    update_time timestamp not null default current_timestamp on update current_timestamp,${version ? '\n    version int not null default 0,' : ''}
    primary key (biz_tag)
  ) engine = innodb`;
}

const placeholders = (target: TargetName, sql: string) => {
  if (target !== 'postgres') return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/**
 * One segment as a Leaf server takes it, with Leaf's own statements (IDAllocMapper): in a
 * transaction `UPDATE leaf_alloc SET max_id = max_id + step WHERE biz_tag = ?` (or `+ #{step}`, its
 * dynamic step) and `SELECT biz_tag, max_id, step …`. Leaf hands out [max_id − step, max_id).
 */
export async function leafSegment(
  target: TargetName,
  connection: RawConnection,
  table: string,
  bizTag: string,
  customStep?: number,
): Promise<bigint[]> {
  const sql = (text: string) => placeholders(target, text);
  await connection.run(target === 'postgres' ? 'begin' : 'start transaction');
  if (customStep === undefined) {
    await connection.run(sql(`UPDATE ${table} SET max_id = max_id + step WHERE biz_tag = ?`), [bizTag]);
  } else {
    await connection.run(sql(`UPDATE ${table} SET max_id = max_id + ? WHERE biz_tag = ?`), [customStep, bizTag]);
  }
  const { rows } = await connection.run(sql(`SELECT biz_tag, max_id, step FROM ${table} WHERE biz_tag = ?`), [bizTag]);
  await connection.run('commit');
  const max = BigInt(String(rows[0]!.max_id));
  const step = BigInt(customStep ?? Number(rows[0]!.step));
  return range(max - step, max - 1n);
}

/**
 * One segment as the variant with a version column takes it: read, then `update … set max_id =
 * max_id + step, version = version + 1 where biz_tag = ? and version = ?`, again while another
 * server won; it hands out (old max_id, new max_id].
 */
export async function versionedSegment(
  target: TargetName,
  connection: RawConnection,
  table: string,
  bizTag: string,
): Promise<bigint[]> {
  const sql = (text: string) => placeholders(target, text);
  for (;;) {
    const { rows } = await connection.run(sql(`select max_id, step, version from ${table} where biz_tag = ?`), [
      bizTag,
    ]);
    const row = rows[0]!;
    const { affected } = await connection.run(
      sql(`update ${table} set max_id = max_id + step, version = version + 1 where biz_tag = ? and version = ?`),
      [bizTag, row.version],
    );
    if (affected === 1) {
      const old = BigInt(String(row.max_id));
      return range(old + 1n, old + BigInt(Number(row.step)));
    }
  }
}

function range(first: bigint, last: bigint): bigint[] {
  const out: bigint[] = [];
  for (let id = first; id <= last; id++) out.push(id);
  return out;
}
