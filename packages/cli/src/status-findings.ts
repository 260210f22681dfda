import type { SqlExecutor } from '@sheaf/core';
import type { Target } from './connection.js';
import type { Check } from './doctor/check.js';
import { galeraCheck } from './doctor/galera-check.js';
import type { GaleraReading } from './doctor/galera-reading.js';
import { nodeIdentityCheck } from './doctor/node-identity-check.js';
import { readNode } from './doctor/node-reading.js';
import { readable, type Unreadable } from './doctor/probe.js';
import { replicationCheck } from './doctor/replication-check.js';
import { readReplicatedSheaf } from './doctor/replication-reading.js';
import { stateCheck } from './doctor/state-check.js';
import type { Installation } from './installed-state.js';

/**
 * What `sheaf status` warns of, as the doctor's checks judge it: state the generator needs and
 * lacks and a copy bound to another node (PostgreSQL, version 16 on), which fail, and schema sheaf
 * replicated (PostgreSQL) and a Galera cluster whose nodes do not each issue a shard of their own
 * (MySQL/MariaDB, `galera`: read by the caller), warnings. Only the checks that did not pass.
 */
export async function statusFindings(
  executor: SqlExecutor,
  target: Target,
  installation: Installation,
  galera: GaleraReading | Unreadable | undefined,
): Promise<Check[]> {
  const postgres = executor.dialect.name === 'postgres';
  const node = postgres && installation.state ? await readable(() => readNode(executor, target)) : undefined;
  const replicated = postgres
    ? warning(replicationCheck(await readable(() => readReplicatedSheaf(executor))))
    : undefined;
  const { version, state } = installation;
  const nodes = state && galeraCheck(galera, { target, version, configuredShard: state.shard });
  return [
    stateCheck(target, installation.gaps),
    nodeIdentityCheck(target, node),
    replicated,
    nodes && warning(nodes),
  ].filter((found): found is Check => found !== undefined && found.status !== 'ok');
}

// The database (the node) still issues ids: status warns where the doctor fails.
function warning(found: Check): Check {
  return found.status === 'fail' ? { ...found, status: 'warn' } : found;
}
