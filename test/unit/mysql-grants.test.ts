import { installScript, mysqlAccount, mysqlAppGrants } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';

describe('mysqlAccount and mysqlAppGrants', () => {
  it('parses user@host, bare or quoted, and quotes it as identifiers for GRANT', () => {
    expect(mysqlAccount('app')).toEqual({ user: 'app', host: '%', sql: '`app`@`%`' });
    expect(mysqlAccount('app@10.0.%').sql).toBe('`app`@`10.0.%`');
    expect(mysqlAccount("'o''brien'@'%'")).toEqual({ user: "o'brien", host: '%', sql: "`o'brien`@`%`" });
    expect(mysqlAccount('`a``b`@"localhost"').sql).toBe('`a``b`@`localhost`');
    expect(mysqlAccount('a@b@%').user).toBe('a@b');
    expect(mysqlAccount("'a@b'").sql).toBe('`a@b`@`%`');
    // A backslash means itself in an identifier, whatever NO_BACKSLASH_ESCAPES says.
    expect(mysqlAccount('a\\b').sql).toBe('`a\\b`@`%`');
  });

  it('refuses what it cannot quote or parse, naming the value', () => {
    for (const text of ['', '@%', 'app@', 'a\0b', "'app'x@%", "app@'h'x"]) {
      expectSheafError(() => mysqlAccount(text), 'INVALID_ARGUMENT', JSON.stringify(text));
    }
    expectSheafError(() => mysqlAccount(42 as unknown as string), 'INVALID_ARGUMENT', '42');
    expectSheafError(() => mysqlAppGrants('app', ''), 'INVALID_ARGUMENT', 'database ""');
  });

  it('grants EXECUTE routine by routine: nothing that configures or creates, no helper, no table', () => {
    const grants = mysqlAppGrants("app'x@%", 'sh`op');
    expect(grants).toContain("grant execute on function `sh``op`.sheaf_next_id to `app'x`@`%`");
    expect(grants).toContain("grant execute on procedure `sh``op`.sheaf_lease_worker to `app'x`@`%`");
    for (const grant of grants) {
      expect(grant).toMatch(/^grant execute on (function|procedure) `sh``op`\.sheaf_[a-z_]+ to `app'x`@`%`$/);
      expect(grant).not.toMatch(/configure|create|sheaf__/);
    }
  });

  it('a printed install script ends with the test clock only when asked for', () => {
    const testClock = 'coalesce(@sheaf_clock_ms, floor(unix_timestamp(sysdate(3)) * 1000))';
    expect(installScript('mysql', { database: 'shop' }).sql).not.toContain(testClock);
    const test = installScript('mysql', { testClock: true, database: 'shop' }).sql;
    expect(test).toContain(testClock);
    // Replacing sheaf's own function, not a forward in the application's database.
    expect(test).toContain('drop function if exists `sheaf_shop`.sheaf__claim_chunk;');
  });
});
