import { sheafTriggerSql } from '@sheaf/core';
import { describe, expect, it } from 'vitest';
import { expectSheafError } from '../support/expect-sheaf-error.js';

describe('sheafTriggerSql', () => {
  it("given the database, calls sheaf's own function in sheaf_<database>, not the forward", () => {
    const { create } = sheafTriggerSql('orders', 'id', { database: 'sh`op' });
    expect(create).toContain('set new.`id` = `sheaf_sh``op`.sheaf_next_id();');
    expect(create).not.toMatch(/= sheaf_next_id\(\)/);
  });

  it('without it, calls the forward of the database the trigger runs in (for SQL meant for other names)', () => {
    expect(sheafTriggerSql('orders', 'id').create).toContain('set new.`id` = sheaf_next_id();');
  });

  it('refuses a database whose state name would pass 64 characters', () => {
    expectSheafError(
      () => sheafTriggerSql('orders', 'id', { database: 'x'.repeat(59) }),
      'INVALID_ARGUMENT',
      'at most 58',
    );
  });
});
