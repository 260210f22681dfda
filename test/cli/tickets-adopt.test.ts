// `sheaf tickets adopt`: two Flickr-classic ticket servers (step 2, offsets 1 and 2) taken over by
// two sheaf servers, on MariaDB and PostgreSQL; refusals that change nothing; and the runbook of
// docs/tickets-adopt.md with writers still drawing classic tickets while adopt runs.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeTargets, type Opened, openDatabase } from '../support/database.js';
import { queryState } from '../support/state-sql.js';
import { sheaf } from './run-sheaf.js';
import { type ClassicServer, classicServer, type SheafServer, sheafServer } from './tickets-adopt-support.js';

interface Report {
  above: string;
  classic: { server: string; highest: string; counterValue?: string; maxId?: string; evidence: string[] }[];
  tickets: { server: string; offset: number; firstTicket: string; action: string; margin: string }[];
}

describeTargets(
  'sheaf tickets adopt',
  (db, target) => {
    const opened: Opened[] = [];
    let classic: ClassicServer[] = [];
    let sheafs: SheafServer[] = [];
    let passed = true;
    const adopt = (name: string, headroom: number, ...extra: string[]) =>
      sheaf([
        'tickets',
        'adopt',
        '--name',
        name,
        '--headroom',
        String(headroom),
        ...classic.flatMap((server) => ['--from', server.url]),
        ...sheafs.flatMap((server) => ['--url', server.url]),
        ...extra,
      ]);
    const adoptJson = async (name: string, headroom: number, ...extra: string[]) => {
      const run = await adopt(name, headroom, ...extra, '--json');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      return JSON.parse(run.stdout) as Report;
    };
    const states = () => Promise.all([...classic, ...sheafs].map((server) => server.state()));

    beforeAll(async () => {
      classic = [await classicServer(target, 1, opened), await classicServer(target, 2, opened)];
      const second = await openDatabase(target);
      opened.push(second);
      sheafs = [await sheafServer(db(), opened), await sheafServer(second.database, opened)];
    });
    beforeEach(({ onTestFailed }) => {
      onTestFailed(() => {
        passed = false;
      });
    });
    afterAll(async () => {
      for (const item of opened.reverse()) await item.close(passed);
    });

    it('takes both servers over at once, above the highest ticket either handed out; a rerun changes nothing', async () => {
      const [a, b] = classic as [ClassicServer, ClassicServer];
      const drawn: bigint[] = [];
      for (let i = 0; i < 5; i++) drawn.push(await a.draw());
      for (let i = 0; i < 8; i++) drawn.push(await b.draw());
      // The highest ticket's row is gone (another stub, deleted): only the counter still knows it.
      const gone = await b.draw('b');
      await b.forget('b');
      drawn.push(gone);
      const dry = await adoptJson('orders', 5, '--dry-run');
      expect(dry.tickets.map((t) => t.action)).toEqual(['would create', 'would create']);
      expect(await Promise.all(sheafs.map((s) => s.state()))).toEqual([[], []]);

      const report = await adoptJson('orders', 5);
      expect(report.tickets.map((t) => [t.action, t.firstTicket])).toEqual(
        dry.tickets.map((t) => ['created', t.firstTicket]),
      );
      const above = BigInt(report.above);
      expect(above).toBeGreaterThanOrEqual(gone);
      expect(BigInt(report.classic[1]!.maxId!)).toBeLessThan(gone);
      for (const [index, ticket] of report.tickets.entries()) {
        const first = BigInt(ticket.firstTicket);
        expect(first % 2n).toBe(BigInt(ticket.offset % 2));
        expect(first > above && first <= above + 6n * 2n).toBe(true);
        expect(await sheafs[index]!.draw('orders')).toBe(first);
        expect(await sheafs[index]!.draw('orders')).toBe(first + 2n);
      }
      expect(Math.max(...drawn.map(Number))).toBeLessThan(Number(report.tickets[0]!.firstTicket));
      expect(report.classic.every((c) => c.evidence.length > 0)).toBe(true);

      const before = await states();
      const again = await adopt('orders', 5);
      expect(again).toMatchObject({ code: 0, stderr: '' });
      expect(again.stdout).toMatch(/offset 1 +unchanged, first ticket \d+/);
      expect(again.stdout).toContain('Already adopted');
      expect(await states()).toEqual(before);
    });

    it('refuses, changing nothing anywhere: swapped offsets, a ticket already in use, no sheaf, bad usage', async () => {
      await queryState(
        sheafs[0]!.executor,
        target === 'mariadb'
          ? "call {state}.sheaf_create_ticket('legacy', 2, 1)"
          : "select sheaf.create_ticket('legacy', 2, 1)",
      );
      await sheafs[0]!.draw('legacy');
      const before = await states();
      const swapped = await adopt('swapped', 0, '--offset', '2', '--offset', '1');
      expect(swapped.code).toBe(1);
      expect(swapped.stderr).toMatch(
        /^sheaf: classic server \S+ was given as offset 2 of step 2, but .*\(TICKET_SERIES_MISMATCH\)\n$/,
      );
      const legacy = await adopt('legacy', 0);
      expect(legacy.code).toBe(1);
      expect(legacy.stderr).toMatch(
        /^sheaf: ticket 'legacy' on \S+ starts at 1, not above \d+, the highest ticket \S+ handed out: .*\(TICKETS_OVERLAP\)\n$/,
      );
      // A --url without sheaf: one classic server taken over by itself.
      const bare = await sheaf(
        ['tickets', 'adopt', '--name', 'x', '--headroom', '0', '--step', '2'].concat([
          '--from',
          classic[0]!.url,
          '--url',
          classic[0]!.url,
        ]),
      );
      expect(bare.code).toBe(1);
      expect(bare.stderr).toMatch(/has no sheaf[._]adopt_ticket\(\): install or upgrade sheaf there first/);
      expect(bare.stderr).toContain('(NOT_INSTALLED)');
      for (const [args, message] of [
        [
          ['--from', `${target === 'mariadb' ? 'mysql' : 'postgres'}://nobody@127.0.0.1:1/none`],
          '3 --from but 2 --url',
        ],
        [['--headroom=-1'], '--headroom must be a whole number of 0 or more, not "-1"'],
        [['--offset', '3', '--offset', '1'], '--offset 3 is not from 1 to the step 2'],
        [['--offset', '1', '--offset', '1'], '--offset 1 is given twice'],
        [['--step', '1'], '--step 1 leaves no offset of its own for each of 2 servers'],
      ] as const) {
        const run = await adopt('usage', 0, ...args);
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toContain(message);
      }
      expect(await states()).toEqual(before);
    });

    it('a rerun after classic servers kept handing out tickets past the headroom says so', async () => {
      const report = await adoptJson('late', 0);
      const first = BigInt(report.tickets[0]!.firstTicket);
      let last = 0n;
      while (last < first) last = await classic[0]!.draw();
      const before = await states();
      const rerun = await adopt('late', 0);
      expect(rerun.code).toBe(1);
      expect(rerun.stderr).toContain("sheaf: ticket 'late' on ");
      expect(rerun.stderr).toMatch(
        new RegExp(`starts at ${first}, not above ${last}, the highest ticket \\S+ handed out`),
      );
      expect(rerun.stderr).toContain('(TICKETS_OVERLAP)');
      expect(await states()).toEqual(before);
    });

    it('runbook: writers draw classic tickets while adopt runs, then switch; no duplicate, gap within headroom', async () => {
      const headroom = 20_000;
      let switched = false;
      let stop = false;
      const drawn: { id: bigint; sheaf: boolean; late: boolean }[][] = [[], []];
      let adopting = false;
      const writers = classic.map(async (server, index) => {
        while (!stop) {
          const [fromSheaf, late] = [switched, adopting];
          const id = fromSheaf ? await sheafs[index]!.draw('live') : await server.draw();
          drawn[index]!.push({ id, sheaf: fromSheaf, late });
          if (fromSheaf && drawn[index]!.filter((t) => t.sheaf).length >= 200) break;
        }
      });
      while (drawn.some((list) => list.length < 100)) await new Promise((resolve) => setTimeout(resolve, 10));
      adopting = true;
      const report = await adoptJson('live', headroom);
      switched = true;
      await Promise.race([Promise.all(writers), new Promise((resolve) => setTimeout(resolve, 20_000))]);
      stop = true;
      await Promise.all(writers);

      const all = drawn.flat().map((t) => t.id);
      expect(new Set(all).size).toBe(all.length);
      for (const [index, list] of drawn.entries()) {
        for (let i = 1; i < list.length; i++) expect(list[i]!.id > list[i - 1]!.id).toBe(true);
        const classicTickets = list.filter((t) => !t.sheaf);
        const lastClassic = classicTickets.at(-1)!.id;
        const firstSheaf = list.find((t) => t.sheaf)!.id;
        expect(firstSheaf).toBe(BigInt(report.tickets[index]!.firstTicket));
        // Drawn after adopt started: within the headroom. The gap: docs/tickets-adopt.md.
        expect(classicTickets.filter((t) => t.late).length).toBeLessThan(headroom);
        const skew = BigInt(report.above) - BigInt(report.classic[index]!.highest);
        expect(firstSheaf - lastClassic).toBeGreaterThan(0n);
        expect(firstSheaf - lastClassic).toBeLessThanOrEqual(skew + BigInt(headroom + 2) * 2n);
      }
      // After the switch, a rerun checks that no classic ticket reached the sheaf tickets.
      const verify = await adoptJson('live', headroom);
      expect(verify.tickets.map((t) => t.action)).toEqual(['unchanged', 'unchanged']);
    });
  },
  { only: ['postgres', 'mariadb'] },
);
