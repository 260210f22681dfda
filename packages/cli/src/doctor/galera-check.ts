import { type Check, check } from './check.js';
import type { GaleraReading } from './galera-reading.js';
import { isUnreadable, type Unreadable } from './probe.js';

/**
 * MariaDB on a Galera node (docs/galera.md). Fails before SQL version 15, when every node issues the
 * configured shard and uniqueness rests on wsrep_auto_increment_control, and when two members share a
 * wsrep_node_name (and so one shard); warns about members without a shard of their own, which issue
 * nothing (NODE_UNBOUND). Undefined off Galera.
 */
export function galeraCheck(
  galera: GaleraReading | Unreadable | undefined,
  version: number,
  shard: number,
  url: string,
): Check | undefined {
  if (galera === undefined) return undefined;
  if (isUnreadable(galera)) return check('galera', 'warn', `cannot read the Galera cluster: ${galera.unreadable}`);
  const control = galera.autoIncrementControl ? 'ON' : 'OFF';
  if (version < 15) {
    return check(
      'galera',
      'fail',
      `this Galera node runs sheaf SQL version ${version}: every node issues shard ${shard}, and ids stay apart only ` +
        `while wsrep_auto_increment_control is ON (it is ${control}); upgrade with a shard of its own for each node: ` +
        `sheaf install --url ${url} --shard <N>, then the same on every other node`,
      { code: 'SHARD_TAKEN', details: { version, shard, autoIncrementControl: control } },
    );
  }
  const byName = new Map<string, string[]>();
  for (const member of galera.members) byName.set(member.name, [...(byName.get(member.name) ?? []), member.address]);
  // The member list has the names nodes joined with; a name set since (wsrep_node_name is dynamic)
  // shows only on the node itself, and sheaf goes by it.
  const namesake = galera.members.find(
    (member) => member.name === galera.node && galera.address !== 'AUTO' && member.address !== galera.address,
  );
  if (namesake && !byName.get(galera.node)?.includes(galera.address)) {
    byName.set(galera.node, [...(byName.get(galera.node) ?? []), galera.address]);
  }
  const shared = [...byName].filter(([, addresses]) => addresses.length > 1);
  const nodes = Object.fromEntries(galera.bound);
  if (shared.length > 0) {
    const described = shared.map(
      ([name, addresses]) =>
        `${addresses.length} members (${addresses.join(', ')}) are named ${name}` +
        (galera.bound.has(name) ? ` and so share shard ${galera.bound.get(name)}` : ''),
    );
    return check(
      'galera',
      'fail',
      `${described.join('; ')}: their ids collide; give each node a wsrep_node_name of its own, then sheaf install --shard <N> on it`,
      { code: 'NODE_UNBOUND', details: { shared: Object.fromEntries(shared), nodes } },
    );
  }
  const unbound = galera.members.filter((member) => !galera.bound.has(member.name));
  const listed = [...galera.bound].map(([name, bound]) => `${name}: shard ${bound}`).join(', ');
  if (unbound.length > 0) {
    return check(
      'galera',
      'warn',
      `${unbound.map((member) => `${member.name} (${member.address})`).join(', ')} ha${unbound.length > 1 ? 've' : 's'} ` +
        `no shard of its own and issue${unbound.length > 1 ? '' : 's'} no ids (NODE_UNBOUND): sheaf install --url <that node> --shard <N>` +
        (listed ? `; bound: ${listed}` : ''),
      { code: 'NODE_UNBOUND', details: { unbound: unbound.map((member) => member.name), nodes } },
    );
  }
  return check('galera', 'ok', `each node issues a shard of its own (${listed}); this is ${galera.node}`, {
    details: { node: galera.node, nodes, autoIncrementControl: control },
  });
}
