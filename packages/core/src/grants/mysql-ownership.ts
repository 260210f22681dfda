import type { SqlExecutor } from '../executor.js';
import { mysqlFiles } from '../install/files.generated.js';
import { type ForwardDrift, mysqlForwardDrift, mysqlForwardsOf, mysqlOwner } from '../install/mysql-forwards.js';
import { type MysqlState, mysqlStateOf } from '../install/mysql-state.js';
import type { OwnershipFinding } from './findings.js';

/**
 * The forwards of the application's database (SQL version 12 on) that are not sheaf's owner's as
 * the files make them: missing, defined by another account, of another SQL SECURITY, or with a
 * body that does not call their namesake in `sheaf_<app>`. An account that may create routines in
 * the application's database can replace `sheaf_next_id()` with its own.
 */
export async function auditMysqlForwards(executor: SqlExecutor): Promise<OwnershipFinding[]> {
  const names = await mysqlStateOf(executor);
  const owner = await mysqlOwner(executor, names);
  if (owner === undefined) return [];
  const drift = await mysqlForwardDrift(executor, names, mysqlForwardsOf(mysqlFiles), owner);
  return drift.map((each) => ({
    object: `${each.forward.kind} ${names.appSql}.${each.forward.name}`,
    owner: each.definer ?? 'nobody',
    expected: owner,
    problem: problemOf(each, names),
  }));
}

function problemOf({ forward, definer, problem }: ForwardDrift, names: MysqlState): string {
  if (problem === 'missing') return 'is missing';
  if (problem === 'definer') return `is defined by ${definer}`;
  if (problem === 'security') return `runs with another SQL SECURITY than ${forward.security}`;
  return `does not forward to ${names.in(forward.name)}`;
}
