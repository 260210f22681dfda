import { type Target, targetUrl } from '../connection.js';
import { type Check, check } from './check.js';
import { listed } from './format.js';
import { type GaleraMember, type GaleraReading, type NodeBinding, nodeShardsFrom } from './galera-reading.js';
import { isUnreadable, type Unreadable } from './probe.js';

/** What the galera check judges besides the reading. */
export interface GaleraFacts {
  readonly target: Target;
  readonly version: number;
  /** The settings row's shard: every node's before version 15. */
  readonly configuredShard: number;
}

/**
 * MySQL/MariaDB with `wsrep_on`: whether each node of the Galera cluster issues a shard of its own
 * (sql/mysql/0015). Before version 15 every node issues the configured shard, and only
 * wsrep_auto_increment_control keeps their ids apart: a failure. Two members with one
 * `wsrep_node_name` share the shard bound to it: a failure. A member without a shard issues
 * nothing (NODE_UNBOUND): a warning. Undefined off Galera.
 */
export function galeraCheck(galera: GaleraReading | Unreadable | undefined, facts: GaleraFacts): Check | undefined {
  if (galera === undefined) return undefined;
  if (isUnreadable(galera)) return check('galera', 'warn', `cannot read the Galera cluster: ${galera.unreadable}`);
  const url = targetUrl(facts.target);
  const { bindings } = galera;
  const base = {
    node: galera.node,
    cluster: galera.clusterUuid,
    autoIncrementControl: galera.autoIncrementControl,
    members: galera.members.map(({ name, address }) => ({ name, address })),
  };
  if (bindings === undefined) return predatesCheck(galera, facts, url, base);
  const shardOf = (name: string) => bindings.find((binding) => binding.node === name)?.shard;
  const details = { ...base, nodes: Object.fromEntries(bindings.map((binding) => [binding.node, binding.shard])) };
  const shared = sharedNames(galera.members);
  if (shared.length > 0) {
    const each = shared.map(([name, members]) => sharedName(name, members, shardOf(name)));
    return check(
      'galera',
      'fail',
      `${each.join('; ')}; give each node a wsrep_node_name of its own (server config), then run ` +
        'sheaf install --url <the renamed node> --shard <N> on it',
      { code: 'SHARD_TAKEN', details: { ...details, sharedNames: shared.map(([name]) => name) } },
    );
  }
  const names = [...new Set([...galera.members.map((member) => member.name), galera.node])];
  const unbound = names.filter((name) => shardOf(name) === undefined);
  if (unbound.length > 0) {
    const here = unbound.includes(galera.node) ? ` (this node: sheaf install --url ${url} --shard <N>)` : '';
    const one = unbound.length === 1;
    return check(
      'galera',
      'warn',
      `Galera node${one ? '' : 's'} ${listed(unbound.map((name) => named(galera, name)))} ` +
        `${one ? 'has' : 'have'} no shard of ${one ? 'its' : 'their'} own and issue${one ? 's' : ''} no ids ` +
        `(NODE_UNBOUND): run sheaf install --url <node> --shard <N> on ${one ? 'it' : 'each'}, a shard no other ` +
        `node or database issues${here}${bindings.length > 0 ? `; bound: ${bound(bindings, galera)}` : ''}`,
      { details: { ...details, unbound } },
    );
  }
  return check('galera', 'ok', `each node issues a shard of its own: ${bound(bindings, galera)}`, { details });
}

function predatesCheck(
  galera: GaleraReading,
  { version, configuredShard }: GaleraFacts,
  url: string,
  details: Record<string, unknown>,
): Check {
  const control = galera.autoIncrementControl
    ? 'it is ON now; OFF, two nodes claim the same chunks and issue the same ids'
    : 'it is OFF now: two nodes claim the same chunks and issue the same ids';
  return check(
    'galera',
    'fail',
    `sheaf SQL version ${version} predates a shard per Galera node (version ${nodeShardsFrom}): every node ` +
      `issues shard ${configuredShard}, and their ids are unique only while wsrep_auto_increment_control keeps ` +
      `their chunk counters apart (${control}); upgrade: run sheaf install --url <node> --shard <N> on each ` +
      `node, a shard of its own each (this node: sheaf install --url ${url} --shard <N>); once the first has ` +
      'run it, a node without a shard refuses ids (NODE_UNBOUND) until it has its own',
    { code: 'SHARD_TAKEN', details: { ...details, version, shard: configuredShard } },
  );
}

// Names held by two members or more, in name order.
function sharedNames(members: readonly GaleraMember[]): [string, GaleraMember[]][] {
  const byName = new Map<string, GaleraMember[]>();
  for (const member of members) byName.set(member.name, [...(byName.get(member.name) ?? []), member]);
  return [...byName].filter(([, each]) => each.length > 1);
}

function sharedName(name: string, members: readonly GaleraMember[], shard: number | undefined): string {
  const where = `${members.length} members of the cluster are named ${name} (${listed(members.map((m) => m.address))})`;
  if (shard === undefined) {
    return `${where}: they have no shard, and sheaf_bind_node refuses the name (NODE_UNBOUND)`;
  }
  return `${where}: they share shard ${shard}, bound to that name, and issue the same ids`;
}

function named(galera: GaleraReading, name: string): string {
  const addresses = galera.members.filter((member) => member.name === name).map((member) => member.address);
  return addresses.length === 0 ? name : `${name} (${addresses.join(', ')})`;
}

// The bound nodes in name order, this one marked: "node1 → shard 1, node2 → shard 2 (this node)".
function bound(bindings: readonly NodeBinding[], galera: GaleraReading): string {
  const each = bindings.map(
    ({ node, shard }) => `${node} → shard ${shard}${node === galera.node ? ' (this node)' : ''}`,
  );
  return each.join(', ');
}
