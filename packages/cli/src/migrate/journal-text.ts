import type { MigrationRecord, MigrationStatus, TableSelection } from '@sheaf/migrate';

/** `--all` or `--table a --table b`, as the user would type the selection again. */
export function selectionArgs(selection: TableSelection | null): string {
  if (!selection) return '<the tables of the plan>';
  if ('all' in selection) return '--all';
  const quoted = (name: string) => (/^[\w.$-]+$/.test(name) ? name : `'${name.replaceAll("'", `'\\''`)}'`);
  return selection.tables.map((table) => `--table ${quoted(table)}`).join(' ');
}

/** Whether two selections name the same tables, in any order. */
export function sameSelection(recorded: TableSelection | null, asked: TableSelection): boolean {
  if (!recorded) return false;
  if ('all' in recorded || 'all' in asked) return 'all' in recorded && 'all' in asked;
  const key = (tables: readonly string[]) => JSON.stringify([...new Set(tables)].sort());
  return key(recorded.tables) === key(asked.tables);
}

/** The commands that go on with an unfinished migration, as lines for stderr. */
export function nextCommands(state: MigrationRecord['state'], selection: TableSelection | null): string {
  const abort = 'sheaf migrate --url <url> --abort';
  if (state === 'aborting') return `to finish undoing it: ${abort}\n`;
  return `to resume: sheaf migrate --url <url> ${selectionArgs(selection)} --apply\nto undo the finished steps: ${abort}\n`;
}

/** `sheaf migrate --status` as text. */
export function statusText(status: MigrationStatus, database: string): string {
  if (status.dialect === 'postgres') return postgresText(status);
  const record = status.latest;
  if (!record) return `no migration journaled in database ${database}\n`;
  if (!record.trusted) return untrustedText(record, database);
  const total = record.steps.length;
  const step = (number: number) => `[${number}/${total}] ${record.steps[number - 1]?.describe.split('\n')[0] ?? ''}`;
  const lines = [
    `migration #${record.id} of database ${database} (${selectionArgs(record.selection)}): ${stateWords(record)}`,
  ];
  if (record.state === 'running' || record.state === 'aborting') {
    lines.push(`  last completed step: ${record.stepsDone === 0 ? 'none' : step(record.stepsDone)}`);
    if (record.state === 'running' && record.stepsDone < total)
      lines.push(`  next step: ${step(record.stepsDone + 1)}`);
    if (record.runningStep !== null) {
      lines.push(
        `  step ${record.runningStep} was running when the run stopped: the next run checks the catalog for whether it committed`,
      );
    }
  }
  if (record.note) lines.push(`  note: ${record.note}`);
  lines.push(
    `  started ${record.startedAt}, last change ${record.updatedAt}${record.finishedAt ? `, finished ${record.finishedAt}` : ''}`,
  );
  const next =
    record.state === 'running' || record.state === 'aborting' ? nextCommands(record.state, record.selection) : '';
  return `${lines.join('\n')}\n${next}`;
}

// Only what sheaf itself may say of the row: its id, state and dates; none of its statements.
function untrustedText(record: MigrationRecord, database: string): string {
  return (
    `migration #${record.id} of database ${database}: untrusted: its record in ${record.journal} does not match ` +
    `its HMAC (written or changed outside sheaf), so sheaf runs nothing from it\n` +
    `  recorded as ${record.state}, started ${record.startedAt}, last change ${record.updatedAt}\n` +
    `to clear it, once you have checked its tables by hand: delete from ${record.journal} where id = ${record.id}\n`
  );
}

function stateWords(record: MigrationRecord): string {
  const total = record.steps.length;
  if (record.state === 'running') return `in progress: step ${record.stepsDone} of ${total} done`;
  if (record.state === 'aborting') return `being aborted: ${record.stepsDone} of ${total} steps still to undo`;
  if (record.state === 'done') return `done (${total} steps)`;
  return 'aborted: the schema is as it was before it';
}

function postgresText(status: MigrationStatus): string {
  const lines = [
    'no journal on PostgreSQL: --apply runs as one transaction, so it either committed or changed nothing',
  ];
  const open = status.online.filter((table) => table.phase !== 'done');
  if (status.online.length === 0) lines.push('online migrations: none recorded');
  else lines.push(`online migrations (sheaf.online_migrations): ${status.online.length - open.length} tables done`);
  for (const table of open) {
    const rows = table.rowsTotal === null ? `${table.rowsDone} rows` : `${table.rowsDone}/${table.rowsTotal} rows`;
    lines.push(
      `  ${table.table.schema}.${table.table.name}: ${table.phase} (${rows}); run the same --online command to resume`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `sheaf migrate --status --json`: the status without the plan's statements. */
export function statusJson(status: MigrationStatus): Record<string, unknown> {
  const record = status.latest;
  const describe = (number: number) =>
    number < 1 ? null : { number, describe: record?.steps[number - 1]?.describe ?? null };
  return {
    dialect: status.dialect,
    state: record?.state ?? 'none',
    unfinished: status.unfinished,
    migration: record && {
      id: record.id,
      trusted: record.trusted,
      selection: record.selection,
      steps: record.steps.length,
      stepsDone: record.stepsDone,
      runningStep: record.runningStep,
      lastStep: describe(record.stepsDone),
      nextStep:
        record.state === 'running' && record.stepsDone < record.steps.length ? describe(record.stepsDone + 1) : null,
      note: record.note,
      startedAt: record.startedAt,
      updatedAt: record.updatedAt,
      finishedAt: record.finishedAt,
    },
    online: status.online,
  };
}
