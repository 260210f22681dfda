import { inState, type SqlExecutor } from '@sheaf/core';
import { flag } from '../args.js';
import { defineCommand } from '../command.js';
import { describeTarget, targetOf, urlHelp, urlOption, withConnection } from '../connection.js';
import { toJson } from '../io.js';
import { largestStoredId } from '../repair/stored-ids.js';
import { UsageError } from '../usage-error.js';

/** ER_UNKNOWN_SYSTEM_VARIABLE: MariaDB, which does not cache information_schema's counters. */
const unknownVariable = 1193;

/** `sheaf repair-counter`: sets a MySQL/MariaDB chunk counter moved past the layout's end back to the clock. */
export const repairCounterCommand = defineCommand({
  name: 'repair-counter',
  summary: "MySQL/MariaDB, sheaf's owner: set a chunk counter moved past the layout's end back to the clock",
  help: `
Usage: sheaf repair-counter [--url <url>] [--json]

When the chunk counter (sheaf_chunks' AUTO_INCREMENT in sheaf_<database>) was moved to the end of
the layout or past it, every id claim fails (TIME_EXHAUSTED) and \`sheaf doctor\` fails its last id
check. No id was issued from there, so this sets the counter back to just above the server clock.
Refused (REPAIR_REFUSED) while the counter is within the layout, since ids ahead of the clock may
have been issued, and when the largest id stored in a table that a sheaf trigger fills is not behind
the clock. Run it as sheaf's owner (the account that installed sheaf): it needs ALTER on
sheaf_<database>.sheaf_chunks. MySQL/MariaDB only.

Options:
${urlHelp}
  --json             print { database, largestStoredId } as JSON
  -h, --help         show this help
`,
  options: { ...urlOption, json: { type: 'boolean' } },
  async run(args, io) {
    const target = targetOf(args, io);
    if (target.dialect !== 'mysql') throw new UsageError('repair-counter is for MySQL/MariaDB databases');
    const largest = await withConnection(target, { create: false }, repair);
    const database = describeTarget(target);
    if (flag(args, 'json')) {
      io.out(toJson({ database, largestStoredId: largest }));
      return;
    }
    const above = largest === null ? 'no stored ids found' : `largest stored id ${largest}`;
    io.out(`set the chunk counter of ${database} back to the clock (${above}): ids flow again\n`);
  },
});

async function repair(executor: SqlExecutor): Promise<string | null> {
  // MySQL 8 caches information_schema's AUTO_INCREMENT, which the procedure reads.
  await executor.query('set session information_schema_stats_expiry = 0').catch((error: unknown) => {
    if ((error as { errno?: unknown }).errno !== unknownVariable) throw error;
  });
  const largest = await largestStoredId(executor);
  const { call } = await inState(executor, { call: 'call {state}.sheaf_repair_counter(?)' });
  await executor.query(call, [largest]);
  return largest;
}
