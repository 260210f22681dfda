import { readFileSync } from 'node:fs';
import * as core from '@sheaf/core';
import { isSheafError, parseId, SheafError, sheafErrorCodes } from '@sheaf/core';
import { describe, expect, it, vi } from 'vitest';

describe('SheafError', () => {
  it('carries a code, a prefixed message and the standard Error shape', () => {
    const error = new SheafError('SHARD_OUT_OF_RANGE', 'shard 5000 does not fit 12 shard bits (max 4095)');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SheafError');
    expect(error.code).toBe('SHARD_OUT_OF_RANGE');
    expect(error.message).toBe('sheaf: shard 5000 does not fit 12 shard bits (max 4095)');
    expect(String(error)).toBe('SheafError: sheaf: shard 5000 does not fit 12 shard bits (max 4095)');
    expect(error.stack).toContain('sheaf: shard 5000');
  });

  it('does not prefix a message twice (messages relayed from SQL already carry it)', () => {
    expect(new SheafError('INVALID_ID', 'sheaf: id "x" is bad').message).toBe('sheaf: id "x" is bad');
  });

  it('keeps cause as the ES2022 option and leaves it out when absent', () => {
    const cause = new Error('connection reset');
    const error = new SheafError('INVALID_ID', 'boom', { cause });
    expect(error.cause).toBe(cause);
    expect(Object.hasOwn(new SheafError('INVALID_ID', 'boom'), 'cause')).toBe(false);
  });

  it('keeps falsy causes', () => {
    expect(new SheafError('INVALID_ID', 'boom', { cause: 0 }).cause).toBe(0);
  });

  it('keeps details, and has none unless given', () => {
    const details = { shardId: 5000, max: 4095 };
    expect(new SheafError('SHARD_OUT_OF_RANGE', 'x', { details }).details).toEqual(details);
    expect(new SheafError('SHARD_OUT_OF_RANGE', 'x').details).toBeUndefined();
  });

  it('puts only JSON-safe values in the details of the errors it raises', () => {
    for (const value of [-1n, 2n ** 64n, '-1']) {
      let caught: unknown;
      try {
        parseId(value);
      } catch (error) {
        caught = error;
      }
      expect(isSheafError(caught), String(value)).toBe(true);
      expect(() => JSON.stringify((caught as SheafError).details)).not.toThrow();
    }
  });
});

describe('isSheafError', () => {
  it('recognises SheafErrors, optionally by code', () => {
    const error = new SheafError('INVALID_ID', 'x');
    expect(isSheafError(error)).toBe(true);
    expect(isSheafError(error, 'INVALID_ID')).toBe(true);
    expect(isSheafError(error, 'ID_OUT_OF_RANGE')).toBe(false);
  });

  it('rejects look-alikes without the brand and non-objects', () => {
    const lookAlike = Object.assign(new Error('sheaf: x'), { name: 'SheafError', code: 'INVALID_ID' });
    for (const value of [
      lookAlike,
      { code: 'INVALID_ID' },
      null,
      undefined,
      'SheafError',
      42,
      Symbol.for('sheaf.error'),
    ]) {
      expect(isSheafError(value)).toBe(false);
    }
    expect(isSheafError({ [Symbol.for('sheaf.error')]: 'true' })).toBe(false);
    expect(isSheafError({ [Symbol('sheaf.error')]: true })).toBe(false);
  });

  it('relies on the Symbol.for brand, which another copy of the package shares', () => {
    const foreign = { [Symbol.for('sheaf.error')]: true, code: 'TIME_EXHAUSTED', message: 'sheaf: x' };
    expect(isSheafError(foreign)).toBe(true);
    expect(isSheafError(foreign, 'TIME_EXHAUSTED')).toBe(true);
  });

  it('hides the brand from enumeration and JSON', () => {
    const error = new SheafError('INVALID_ID', 'x', { details: { value: 'x' } });
    expect(Object.getOwnPropertySymbols(error)).toEqual([]);
    expect(JSON.stringify({ ...error })).not.toContain('sheaf.error');
  });

  it('works across two module instances, where instanceof does not', async () => {
    vi.resetModules();
    const copy: typeof core = await import('@sheaf/core');
    expect(copy.SheafError).not.toBe(SheafError);
    expect(copy.presets).not.toBe(core.presets);

    let fromCopy: unknown;
    try {
      copy.parseId('not an id');
    } catch (error) {
      fromCopy = error;
    }
    expect(fromCopy instanceof SheafError).toBe(false);
    expect(isSheafError(fromCopy, 'INVALID_ID')).toBe(true);
    expect(copy.isSheafError(new SheafError('TIME_EXHAUSTED', 'x'), 'TIME_EXHAUSTED')).toBe(true);
  });
});

describe('sheafErrorCodes', () => {
  it('lists each code once and cannot be changed', () => {
    expect(new Set(sheafErrorCodes).size).toBe(sheafErrorCodes.length);
    expect(Object.isFrozen(sheafErrorCodes)).toBe(true);
    expect([...sheafErrorCodes].sort()).toEqual(
      [
        'ID_OUT_OF_RANGE',
        'INVALID_ID',
        'INVALID_LAYOUT',
        'INVALID_TIME',
        'SEQUENCE_OUT_OF_RANGE',
        'SHARD_OUT_OF_RANGE',
        'TIME_BEFORE_EPOCH',
        'TIME_EXHAUSTED',
        'INVALID_ARGUMENT',
        'LAYOUT_LOCKED',
        'UNKNOWN_TICKET',
        'UNKNOWN_SEGMENT',
        'NAME_TAKEN',
        'SEGMENT_EXHAUSTED',
        'SEGMENT_CLASS_MISMATCH',
        'INSTALL_CONFLICT',
        'NOT_INSTALLED',
        'IN_USE',
        'WORKERS_EXHAUSTED',
        'LEASE_LOST',
        'LEASE_EXPIRED',
        'CLOCK_MOVED_BACKWARDS',
        'CLOCK_BEHIND_WORKER',
        'SEGMENT_UNAVAILABLE',
        'TICKETS_UNAVAILABLE',
        'TICKETS_OVERLAP',
        'TICKET_SERIES_MISMATCH',
        'BATCH_UNAVAILABLE',
        'GENERATOR_CLOSED',
        'UNSUPPORTED_DIALECT',
        'SERVER_CONFIG',
        'IDS_UNAVAILABLE',
        'UNKNOWN_TABLE',
        'UNSUPPORTED_KEY',
        'KEYS_ABOVE_FLOOR',
        'VERIFY_FAILED',
        'GENERATOR_BUSY',
        'SHARD_NOT_OWNED',
        'UNSAFE_GRANTS',
        'UNSAFE_OWNERSHIP',
        'SHARD_TAKEN',
        'REGISTRY_ELSEWHERE',
        'REGISTRY_UNAVAILABLE',
        'MIGRATION_UNFINISHED',
        'MIGRATION_INTERRUPTED',
        'JOURNAL_UNTRUSTED',
        'NATIVE_UNAVAILABLE',
        'READ_ONLY',
        'REPAIR_REFUSED',
        'DATABASE_COPIED',
        'STATE_DAMAGED',
        'NODE_UNBOUND',
        'NATIVE_BUILD_FAILED',
      ].sort(),
    );
  });

  it('matches the sections of docs/errors.md, both ways', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^### `([A-Z_]+)`$/gm)].map((match) => match[1]);
    expect([...documented].sort()).toEqual([...sheafErrorCodes].sort());
  });
});
