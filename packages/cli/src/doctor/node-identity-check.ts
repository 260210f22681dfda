import { type Target, targetUrl } from '../connection.js';
import { type Check, check } from './check.js';
import { knownIdentity, type NodeReading } from './node-reading.js';
import { isUnreadable, type Unreadable } from './probe.js';

/**
 * PostgreSQL, SQL version 16 on: the node the shard is bound to (`settings.node_identity`) against
 * the node the database runs on (`sheaf.node_identity()`). Another node, or none recorded, is a
 * copy (a restore, a template, a logical sync, a replicated settings row): the generator refuses
 * to issue the original's ids until the copy gets a shard of its own or is confirmed as moved.
 * Undefined on MySQL, before version 16, or where the settings row is missing or cannot be read.
 */
export function nodeIdentityCheck(target: Target, node: NodeReading | Unreadable | undefined): Check | undefined {
  if (node === undefined) return undefined;
  if (isUnreadable(node)) return check('node identity', 'warn', `cannot read the node identity: ${node.unreadable}`);
  const { bound, identity } = node;
  if (bound === undefined) return undefined;
  const details = { node: identity, boundNode: bound.identity, databaseId: bound.databaseId, shard: bound.shard };
  if (bound.identity === identity) {
    const note = knownIdentity(identity)
      ? ''
      : ' (the server hides pg_control_system(): a copy on another server is told by the database oid alone)';
    return check('node identity', 'ok', `shard ${bound.shard} is bound to this node, ${identity}${note}`, {
      details,
    });
  }
  const url = targetUrl(target);
  const boundTo = bound.identity === null ? 'no node' : `node ${bound.identity}`;
  return check(
    'node identity',
    'fail',
    `this database is a copy of ${bound.databaseName} (database_id ${bound.databaseId}, shard ${bound.shard}): ` +
      `its shard is bound to ${boundTo} and it runs on node ${identity}, so next_id() refuses ` +
      `(DATABASE_COPIED); give it a shard of its own: sheaf install --url ${url} --shard <N>; or, if the ` +
      `original is gone for good, confirm the move: sheaf install --url ${url} --moved`,
    { code: 'DATABASE_COPIED', details: { ...details, original: bound.databaseName } },
  );
}
