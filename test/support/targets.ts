/** The databases a test can run on, chosen with SHEAF_TEST_TARGETS (default: all three). */
export type TargetName = 'postgres' | 'mariadb' | 'pglite';

export const allTargets: readonly TargetName[] = ['postgres', 'mariadb', 'pglite'];

export const pgUrl = process.env.SHEAF_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const mysqlUrl = process.env.SHEAF_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

export function selectedTargets(): TargetName[] {
  const raw = process.env.SHEAF_TEST_TARGETS;
  if (!raw) return [...allTargets];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!allTargets.includes(name as TargetName)) {
      throw new Error(`SHEAF_TEST_TARGETS names unknown target "${name}" (known: ${allTargets.join(', ')})`);
    }
  }
  return names as TargetName[];
}

/** The URL of a database called `name` on the same server as `serverUrl`. */
export function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
