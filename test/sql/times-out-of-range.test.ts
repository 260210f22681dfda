// Times no layout can encode reach the SQL functions that turn times into ids: PostgreSQL's
// 'infinity' and '-infinity' and its timestamps up to the year 294276, MySQL's year-0 DATETIMEs and
// zero dates. Each is refused with sheaf's SQLSTATE naming the time (SQL 0015 / MySQL 0011), never a
// server error from the conversion or from writing the time into the message.
import { defineLayout, install } from '@sheaf/core';
import { beforeAll, expect, it } from 'vitest';
import { describeTargets } from '../support/database.js';
import { expectSheafRejection } from '../support/expect-sheaf-error.js';
import { queryState } from '../support/state-sql.js';

const epoch = 'the epoch 2024-01-01T00:00:00.000Z';
const end = 'after 2093-09-06T15:47:35.551Z, the';

/** Milliseconds where sheaf._iso must write what JavaScript's toISOString writes, and beyond. */
const isoCases = [
  0, -1, 1704067200000, 253402300799999, 253402300800000, -62135596800000, -62167219200000, -62167219200001,
  8_640_000_000_000_000, -210866803200000,
];

describeTargets('times out of range in the SQL functions', (db, target) => {
  const postgres = target !== 'mariadb';
  const query = (sql: string) => db().executor.query(sql);

  beforeAll(() => install(db().executor, { shard: 3 }));

  it.skipIf(!postgres)("encode_id, id_floor and id_ceiling refuse 'infinity' and '-infinity' by name", async () => {
    for (const call of [
      "sheaf.encode_id('-infinity', 0, 0)",
      "sheaf.id_floor('-infinity')",
      "sheaf.id_ceiling('-infinity')",
    ]) {
      await expectSheafRejection(query(`select ${call}`), 'TIME_BEFORE_EPOCH', `time -infinity is before ${epoch}`);
    }
    for (const call of [
      "sheaf.encode_id('infinity', 0, 0)",
      "sheaf.id_floor('infinity')",
      "sheaf.id_ceiling('infinity')",
    ]) {
      await expectSheafRejection(
        query(`select ${call}`),
        'TIME_EXHAUSTED',
        `time infinity is ${end} last instant layout sheaf can encode`,
      );
    }
  });

  it.skipIf(!postgres)('names times of 5- and 6-digit years, BC ones too, as toISOString writes them', async () => {
    await expectSheafRejection(
      query("select sheaf.id_floor('294276-12-31 23:59:59.999+00')"),
      'TIME_EXHAUSTED',
      `time +294276-12-31T23:59:59.999Z is ${end}`,
    );
    await expectSheafRejection(
      query("select sheaf.id_ceiling('20000-01-01 00:00:00+00')"),
      'TIME_EXHAUSTED',
      `time +020000-01-01T00:00:00.000Z is ${end}`,
    );
    await expectSheafRejection(
      query("select sheaf.encode_id('4714-11-24 00:00:00+00 BC', 0, 0)"),
      'TIME_BEFORE_EPOCH',
      `time -004713-11-24T00:00:00.000Z is before ${epoch}`,
    );
    await expectSheafRejection(
      query("select sheaf.id_floor('0001-06-30 12:00:00+00 BC')"),
      'TIME_BEFORE_EPOCH',
      `time 0000-06-30T12:00:00.000Z is before ${epoch}`,
    );
  });

  it.skipIf(postgres)(
    'a DATETIME of year 0 is refused by name; a zero date, month or day as INVALID_ARGUMENT',
    async () => {
      await expectSheafRejection(
        query("select sheaf_id_floor('0000-01-01 00:00:00')"),
        'TIME_BEFORE_EPOCH',
        `time 0000-01-01T00:00:00.000Z is before ${epoch}`,
      );
      await expectSheafRejection(
        query("select sheaf_encode_id('0000-12-31 23:59:59.999', 0, 0)"),
        'TIME_BEFORE_EPOCH',
        'time 0000-12-31T23:59:59.999Z is before',
      );
      for (const [time, call] of [
        ['0000-00-00 00:00:00.000', "sheaf_id_floor('0000-00-00')"],
        ['2024-00-10 00:00:00.000', "sheaf_id_ceiling('2024-00-10')"],
        ['2024-05-00 10:00:00.123', "sheaf_encode_id('2024-05-00 10:00:00.123', 0, 0)"],
      ]) {
        await expectSheafRejection(
          query(`select ${call}`),
          'INVALID_ARGUMENT',
          `time ${time} has a zero month or day and no instant: pass a valid DATETIME`,
        );
      }
      await expectSheafRejection(
        query("select sheaf_id_ceiling('9999-12-31 23:59:59.999')"),
        'TIME_EXHAUSTED',
        'time 9999-12-31T23:59:59.999Z is after 2093-09-06T15:47:35.551Z, the end of layout sheaf',
      );
      expect(await query('select sheaf_id_floor(null) as id')).toEqual([{ id: null }]);
    },
  );

  it('the time writer of the messages writes every bigint: ISO 8601 as toISOString, the number beyond', async () => {
    const iso = postgres ? 'sheaf._iso' : '{state}.sheaf__iso';
    const extremes = ['9223372036854775807', '-9223372036854775808'];
    const [row] = await queryState<Record<string, string>>(
      db().executor,
      `select ${[...isoCases, ...extremes].map((ms, i) => `${iso}(${ms}) as t${i}`).join(', ')}`,
    );
    // MySQL's DATETIME arithmetic starts at year 1; PostgreSQL's timestamps at 4714 BC.
    const written = (ms: number) =>
      !postgres && (ms < -62135596800000 || ms > 253402300799999) ? `${ms} ms` : new Date(ms).toISOString();
    expect(Object.values(row!)).toEqual([...isoCases.map(written), ...extremes.map((ms) => `${ms} ms`)]);
  });

  // configure() writes the layout's end into the functions; MySQL's functions compute it when they
  // refuse a time, which a DATETIME (years up to 9999) cannot be for such a layout.
  it.skipIf(!postgres)(
    'a layout whose time bits outlast the server timestamps installs, and names its end as a number',
    async () => {
      // No id was issued, so the layout may still change; 54 time bits end in the year 570 million.
      const wide = defineLayout({ name: 'wide', epoch: 0, timeBits: 54, shardBits: 0, sequenceBits: 9 });
      await install(db().executor, { shard: 0, layout: wide });
      await expectSheafRejection(
        query("select sheaf.id_floor('infinity')"),
        'TIME_EXHAUSTED',
        'time infinity is after 18014398509481983 ms, the last instant layout wide can encode',
      );
      const [row] = await db().executor.query<{ id: string }>(
        "select sheaf.id_floor('294276-12-31 23:59:59.999+00')::text as id",
      );
      expect(BigInt(row!.id)).toBe(9224318015999999n << 9n);
    },
  );
});
