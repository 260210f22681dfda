// Duplicates: sheaf.next_id() against Instagram's function with a frozen clock, a clock stepped
// back, and real clocks under 8 clients. Runs in a database of its own with the test clock installed.
import { pgbench } from './pgbench.js';
import { createSharedDatabase, databaseName, instagramSql, realClock } from './postgres-candidates.js';
import { markdownTable, rate } from './suite.js';

export async function duplicates({
  clients,
  seconds,
}: {
  clients: number;
  seconds: number;
}): Promise<{ markdown: string; sheaf: number }> {
  const db = await createSharedDatabase(databaseName('dup'), true);
  const count = async (select: string, script: [number, number][]) =>
    db.sql.session(async (session) => {
      const ids: string[] = [];
      for (const [clock, n] of script) {
        await session.query("select set_config('sheaf.clock_ms', $1, false)", [String(clock)]);
        const rows = await session.query<{ id: string }>(`select ${select} as id from generate_series(1, ${n})`);
        ids.push(...rows.map((row) => row.id));
      }
      await session.query("select set_config('sheaf.clock_ms', '', false)");
      return ids.length - new Set(ids).size;
    });
  const t = Date.now() + 60_000;
  const scenarios: [string, [number, number][]][] = [
    ['5,000 ids in one frozen millisecond', [[t, 5000]]],
    [
      '1,024 ids, 1,024 in the next ms, clock back 1 ms, 1,024 more',
      [
        [t + 10, 1024],
        [t + 11, 1024],
        [t + 10, 1024],
      ],
    ],
  ];
  const rows: string[][] = [];
  let sheafDuplicates = 0;
  try {
    for (const [scenario, script] of scenarios) {
      const sheaf = await count('sheaf.next_id()', script);
      sheafDuplicates += sheaf;
      rows.push([scenario, String(await count('instagram.next_id()', script)), String(sheaf)]);
    }
    // The natural race: a backend pre-empted between nextval() and the clock pairs an old residue
    // with a new millisecond. Real clocks, 8 clients, 100-row inserts into tables without a key.
    await db.sql.query(instagramSql(realClock));
    for (const name of ['instagram', 'sheaf']) {
      await db.sql.query(`create unlogged table d_${name} (id bigint default ${name}.next_id(), v integer)`);
    }
    const natural = [];
    for (const name of ['instagram', 'sheaf']) {
      pgbench({
        url: db.url,
        script: `insert into d_${name} (v) select g from generate_series(1, 100) g;`,
        clients,
        seconds,
      });
      const [row] = await db.sql.query<{ total: string; dups: string }>(
        `select count(*) as total, count(*) - count(distinct id) as dups from d_${name}`,
      );
      natural.push(`${row?.dups} of ${rate(Number(row?.total))}`);
      if (name === 'sheaf') sheafDuplicates += Number(row?.dups);
    }
    rows.push([`${clients} clients, 100-row inserts for ${seconds} s, real clock`, natural[0]!, natural[1]!]);
  } finally {
    await db.close();
  }
  return {
    markdown: `#### Duplicates\n\n${markdownTable(['scenario', "Instagram's next_id()", 'sheaf.next_id()'], rows)}`,
    sheaf: sheafDuplicates,
  };
}
