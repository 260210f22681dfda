import type { SqlExecutor } from '../executor.js';
import type { TestClockInstall } from './dialect-install.js';
import type { SettingsRow } from './settings.js';
import type { SqlFile } from './sql-file.js';

/**
 * Installs the generator variant that reads the test clock (`on`), or the production one, unless
 * it is there already: a production start-up install() re-creates nothing.
 */
export async function switchTestClock(
  session: SqlExecutor,
  clock: TestClockInstall,
  files: readonly SqlFile[],
  on: boolean,
  current: SettingsRow | undefined,
): Promise<void> {
  const [row] = await session.query<{ test: unknown }>(clock.installed);
  // A body hidden from this account: the settings row, which install() keeps in step with it.
  const installed = row === undefined ? undefined : truthy(row.test ?? current?.test_clock);
  if (installed === on) return;
  for (const statement of clock.statements(files, on)) await session.query(statement);
}

function truthy(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}
