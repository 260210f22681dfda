import { installScript, presets, sqlVersion, uninstallScript } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';

const statements = (sql: string) => sql.split(/^-- sheaf:break$/m).map((statement) => statement.trim());

describe('installScript', () => {
  it('wraps PostgreSQL in one locked transaction and configures shard and layout with literals', () => {
    const { version, sql } = installScript('postgres', { shard: 9, layout: 'instagram' });
    expect(version).toBe(sqlVersion('postgres'));
    const parts = statements(sql);
    expect(parts[0]).toMatch(/^-- sheaf SQL version \d+ \(postgres\)[^\n]*shard 9, layout instagram\.\n\nbegin;$/);
    expect(parts[1]).toBe('select pg_advisory_xact_lock(8316008180944039539);');
    const { epoch, timeBits, shardBits, sequenceBits } = presets.instagram;
    expect(parts.at(-2)).toBe(
      `select sheaf.configure(9, 'instagram', ${epoch}, ${timeBits}, ${shardBits}, ${sequenceBits}, false);`,
    );
    expect(parts.at(-1)).toBe('commit;');
    expect(parts.every((part) => part.endsWith(';'))).toBe(true);
    expect(sql.match(/insert into sheaf\.schema_versions/g)).toHaveLength(version);
  });

  it('gives MySQL a GET_LOCK, no DELIMITER, and releases the lock at the end', () => {
    const { sql } = installScript('mysql', { upTo: 2, database: 'shop' });
    const parts = statements(sql);
    expect(parts[0]).toMatch(/get_lock\(concat\('sheaf_install:'/);
    expect(parts.at(-1)).toMatch(/^select release_lock/);
    expect(sql).not.toMatch(/^\s*delimiter\b/im);
    expect(sql.match(/insert into `shop`\.sheaf_schema_versions/g)).toHaveLength(2);
    expect(sql).toContain("call `shop`.sheaf_configure(0, 'sheaf', 1704067200000, 41, 12, 10, false);");
  });

  it('puts MySQL state into sheaf_<database>: files record where the version table is as they end', () => {
    const { version, sql } = installScript('mysql', { database: 'shop' });
    expect(sql).toContain('create database if not exists `sheaf_shop`;');
    expect(sql).not.toContain('{state}');
    // sheaf's own routine: the application's database has no forward of it from version 13 on.
    expect(sql).toContain("call `sheaf_shop`.sheaf_configure(0, 'sheaf', 1704067200000, 41, 12, 10, false);");
    expect(sql.match(/insert into `shop`\.sheaf_schema_versions/g)).toHaveLength(11);
    expect(sql.match(/insert into `sheaf_shop`\.sheaf_schema_versions/g)).toHaveLength(version - 11);
    expectSheafError(() => installScript('mysql'), 'INVALID_ARGUMENT', 'needs the database it is for');
  });

  it('refuses a shard the layout cannot hold, naming the limit', () => {
    expectSheafError(
      () => installScript('postgres', { shard: 4096 }),
      'SHARD_OUT_OF_RANGE',
      'shard 4096 does not fit 12 shard bits (max 4095)',
    );
  });

  it('prints the forced removal for uninstall', () => {
    expect(statements(uninstallScript('postgres'))).toContain('drop schema sheaf cascade;');
    const mysql = uninstallScript('mysql', { database: 'shop' });
    expect(mysql).toContain('drop function if exists `shop`.sheaf_next_id;');
    expect(mysql).toContain('drop database if exists `sheaf_shop`;');
  });
});
