import { type Check, check } from './check.js';
import { listed } from './format.js';
import { isUnreadable, type Unreadable } from './probe.js';
import type { ReplicatedSheaf } from './replication-reading.js';

/**
 * PostgreSQL: schema sheaf replicated by a publication or a pglogical replication set fails. A
 * subscriber would receive this database's settings (its shard, its node) and sequences as its
 * own; only application tables may be replicated (docs/replication.md).
 */
export function replicationCheck(found: readonly ReplicatedSheaf[] | Unreadable): Check {
  if (isUnreadable(found)) {
    return check('replication', 'warn', `cannot read the publications and replication sets: ${found.unreadable}`);
  }
  if (found.length === 0) {
    return check('replication', 'ok', 'no publication or pglogical replication set includes schema sheaf');
  }
  return check('replication', 'fail', replicationMessage(found), {
    code: 'SERVER_CONFIG',
    details: { replicated: found },
  });
}

/**
 * The finding in one sentence, for the doctor's check and the status's warning line.
 *
 * @example
 * replicationMessage([{ via: 'publication', name: 'everything', relations: ['sheaf.settings'] }]);
 * // "publication everything (sheaf.settings) replicates sheaf's own tables: … remove schema sheaf from it …"
 */
export function replicationMessage(found: readonly ReplicatedSheaf[]): string {
  const each = found.map(({ via, name, relations }) => `${via} ${name} (${shown(relations)})`);
  const how = found.some((each) => each.via === 'publication')
    ? ' (a publication FOR ALL TABLES or TABLES IN SCHEMA sheaf takes them too: list the application tables instead)'
    : '';
  return (
    `${listed(each)} replicate${found.length === 1 ? 's' : ''} sheaf's own tables: a subscriber would take this ` +
    `database's shard and settings as its own; remove schema sheaf from ${found.length === 1 ? 'it' : 'them'} ` +
    `and replicate only application tables${how}`
  );
}

function shown(relations: readonly string[]): string {
  const more = relations.length > 3 ? `, and ${relations.length - 3} more` : '';
  return `${relations.slice(0, 3).join(', ')}${more}`;
}
