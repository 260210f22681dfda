import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type MysqlState, SheafError, type SqlExecutor } from '@sheaf/core';

// One row: the secret every journal record of this database is authenticated with. It lives in the
// state database, which only sheaf's owner can read or write, never beside the application's tables.
const keyTable = 'sheaf_journal_key';

const createSql = (state: MysqlState) => `
  create table if not exists ${state.in(keyTable)} (
    id tinyint not null primary key,
    secret char(64) character set ascii not null
  ) engine = innodb`;

/**
 * Creates the key table and its random 32-byte secret when missing; returns the secret. Throws
 * JOURNAL_UNTRUSTED when the row holds something else: nothing signed with it could be checked.
 */
export async function ensureJournalKey(session: SqlExecutor, state: MysqlState): Promise<Buffer> {
  await session.query(createSql(state));
  // `insert ignore`: two first runs at once keep whichever secret came first.
  await session.query(`insert ignore into ${state.in(keyTable)} (id, secret) values (1, ?)`, [
    randomBytes(32).toString('hex'),
  ]);
  const key = await readJournalKey(session, state);
  if (key) return key;
  throw new SheafError(
    'JOURNAL_UNTRUSTED',
    `the journal key in ${state.in(keyTable)} is not 64 hexadecimal digits: it was changed outside sheaf; ` +
      `nothing was run. Delete its row (delete from ${state.in(keyTable)}) and the next run makes a new one ` +
      '(records signed with the old key are then untrusted)',
    { details: { key: `${state.state}.${keyTable}` } },
  );
}

/** The secret, or null when the key table or its row is missing (no record can then be trusted). */
export async function readJournalKey(session: SqlExecutor, state: MysqlState): Promise<Buffer | null> {
  const [exists] = await session.query<{ n: number | string }>(
    `select count(*) as n from information_schema.tables where table_schema = ? and table_name = ?`,
    [state.state, keyTable],
  );
  if (Number(exists?.n) === 0) return null;
  const [row] = await session.query<{ secret: string }>(`select secret from ${state.in(keyTable)} where id = 1`);
  return typeof row?.secret === 'string' && /^[0-9a-f]{64}$/.test(row.secret) ? Buffer.from(row.secret, 'hex') : null;
}

/** The columns of a record that anything is ever run or trusted from, as stored. */
export interface SignedColumns {
  readonly id: number;
  readonly selection: string | null;
  readonly planChecksum: string;
  readonly steps: string;
  readonly fingerprints: string;
}

/** HMAC-SHA256 of a record's signed columns, hex. */
export function recordMac(key: Buffer, columns: SignedColumns): string {
  const { id, selection, planChecksum, steps, fingerprints } = columns;
  const text = JSON.stringify(['sheaf journal 1', id, selection, planChecksum, steps, fingerprints]);
  return createHmac('sha256', key).update(text).digest('hex');
}

/** Whether `mac` is the record's HMAC under `key` (false without a key). */
export function macMatches(key: Buffer | null, columns: SignedColumns, mac: unknown): boolean {
  if (!key || typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(recordMac(key, columns), 'hex'), Buffer.from(mac, 'hex'));
}
