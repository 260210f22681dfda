import { type Fleet, type Member, readingOf } from './fleet.js';
import { galeraOf, type NodeShards, nodeShardsOf } from './galera-shards.js';
import type { HolderRow } from './id-space-reading.js';

/** How a shard value is held, most telling first; `node`: bound to a Galera node not given. */
const holdingKinds = ['configured', 'node', 'logical', 'registered', 'pending', 'leased'] as const;
export type HoldingKind = (typeof holdingKinds)[number];

/** One holder's hold on one value of the shard field, as read in one database. */
export interface Holding {
  readonly value: number;
  readonly kind: HoldingKind;
  /** Who issues ids with the value: every holding of one database (or one lease) has the same key. */
  readonly holder: string;
  /** The database the holding was read in, as the report names it. */
  readonly readIn: string;
  /** The holder for messages: a database's label, "database 'name' (id)", or a worker's holder text. */
  readonly name: string;
  /** Registered and pending holdings: the registered database's id. */
  readonly databaseId?: string;
  readonly heartbeatMs?: number;
}

/** One value held by two holders or more: their ids collide. */
export interface Clash {
  readonly value: number;
  /** One holding per holder, the most telling of each. */
  readonly holdings: readonly Holding[];
}

/**
 * Every holding in the fleet: each database's configured and logical shards, and the rows of its
 * workers table, live worker leases and databases registered there (confirmed or pending). Each
 * database given is a holder of its own, even one that shares its database_id with another (a
 * copy); a registration is the holding of the database given with its database_id, the one that
 * issues the value where several do. A Galera node from SQL version 15 holds its node's shard (not
 * the configured one), and the shards bound to nodes not given are held by those nodes.
 */
export function holdingsOf(fleet: Fleet): Holding[] {
  const own = (member: Member): Holding[] => {
    const key = keyOf(fleet, member);
    const ofDatabase = (value: number, kind: HoldingKind): Holding => ({
      value,
      kind,
      holder: key,
      readIn: member.label,
      name: member.label,
    });
    const nodes = nodeShardsOf(member);
    if (nodes) return nodeHoldings(fleet, member, nodes, ofDatabase);
    return [
      ofDatabase(member.state.shard, 'configured'),
      ...(readingOf(member)?.logicalShards ?? []).map((value) => ofDatabase(value, 'logical')),
    ];
  };
  const owned = fleet.members.flatMap(own);
  return [
    ...owned,
    ...fleet.members.flatMap((member) =>
      (readingOf(member)?.holders ?? []).map((row) => rowHolding(fleet, member, row, owned)),
    ),
  ];
}

/** The values held by more than one holder, in value order; each clash's most telling holding first. */
export function clashesOf(holdings: readonly Holding[]): Clash[] {
  const byValue = new Map<number, Map<string, Holding>>();
  for (const holding of holdings) {
    const holders = byValue.get(holding.value) ?? new Map<string, Holding>();
    const kept = holders.get(holding.holder);
    if (!kept || rank(holding) < rank(kept)) holders.set(holding.holder, holding);
    byValue.set(holding.value, holders);
  }
  return [...byValue]
    .filter(([, holders]) => holders.size > 1)
    .sort(([a], [b]) => a - b)
    .map(([value, holders]) => ({ value, holdings: [...holders.values()].sort((a, b) => rank(a) - rank(b)) }));
}

/**
 * A holding in words: "configured on A", "a logical shard of A", "registered in R for A",
 * "claimed in R for database 'x' (id), not confirmed", "leased by worker 'pid 12 on h' in B".
 */
export function describeHolding(holding: Holding): string {
  const { kind, readIn, name } = holding;
  const target = name === readIn ? '' : ` for ${name}`;
  if (kind === 'configured') return `configured on ${readIn}`;
  if (kind === 'node') return `bound to ${name} (read in ${readIn})`;
  if (kind === 'logical') return `a logical shard of ${readIn}`;
  if (kind === 'registered') return `registered in ${readIn}${target}`;
  if (kind === 'pending') return `claimed in ${readIn}${target}, not confirmed`;
  return `leased by worker '${name}' in ${readIn}`;
}

// The node's own shard; those of the cluster's other nodes not given (each node given holds its own);
// the logical shards, which no node issues from version 15 on but the cluster holds.
function nodeHoldings(
  fleet: Fleet,
  member: Member,
  nodes: NodeShards,
  ofDatabase: (value: number, kind: HoldingKind) => Holding,
): Holding[] {
  const given = new Set(fleet.members.flatMap((other) => clusterNode(other, nodes.clusterUuid) ?? []));
  const held = nodes.bindings.flatMap((binding): Holding[] => {
    if (binding.node === nodes.node) return [ofDatabase(binding.shard, 'configured')];
    if (given.has(binding.node)) return [];
    const name = `Galera node ${binding.node}`;
    const holder = `${clusterKey(nodes)} node ${binding.node}`;
    return [{ value: binding.shard, kind: 'node', holder, readIn: member.label, name }];
  });
  const logical = (readingOf(member)?.logicalShards ?? []).map(
    (value): Holding => ({
      value,
      kind: 'logical',
      holder: clusterKey(nodes),
      readIn: member.label,
      name: member.label,
    }),
  );
  return [...held, ...logical];
}

function rowHolding(fleet: Fleet, member: Member, row: HolderRow, owned: readonly Holding[]): Holding {
  const base = { value: row.value, readIn: member.label, ...since(row) };
  if (row.kind === 'worker') {
    return { ...base, kind: 'leased', holder: `worker ${member.label} ${row.value}`, name: row.holder };
  }
  const id = row.databaseId ?? '';
  const kind = row.pending ? 'pending' : 'registered';
  const nodes = nodeShardsOf(member);
  if (nodes && id === readingOf(member)?.databaseId) {
    // Every node reads its cluster's registrations: each is the issuing node's, else the cluster's.
    const ofCluster = new Set([
      ...fleet.members
        .filter((other) => clusterNode(other, nodes.clusterUuid) !== undefined)
        .map((other) => keyOf(fleet, other)),
      ...nodes.bindings.map((binding) => `${clusterKey(nodes)} node ${binding.node}`),
    ]);
    const issuer = owned.find((holding) => holding.value === row.value && ofCluster.has(holding.holder));
    const holder = issuer?.holder ?? clusterKey(nodes);
    return { ...base, kind, holder, name: issuer?.name ?? `Galera cluster ${nodes.clusterUuid}`, databaseId: id };
  }
  const registered = registeredMember(fleet, member, id, row.value, owned);
  if (registered === undefined) {
    return { ...base, kind, holder: `database ${id}`, name: `database '${row.holder}' (${id})`, databaseId: id };
  }
  return { ...base, kind, holder: keyOf(fleet, registered), name: registered.label, databaseId: id };
}

// The live name of a node of that cluster, for a member that is one.
function clusterNode(member: Member, clusterUuid: string): string | undefined {
  const galera = galeraOf(member);
  return galera?.clusterUuid === clusterUuid ? galera.node : undefined;
}

function clusterKey(nodes: NodeShards): string {
  return `Galera cluster ${nodes.clusterUuid}`;
}

// A database given is known by its place on the command line: two may share a database_id (a copy).
function keyOf(fleet: Fleet, member: Member): string {
  return `database #${fleet.members.indexOf(member)}`;
}

// The database given with that database_id: the one the row is read in, else one issuing the value.
function registeredMember(
  fleet: Fleet,
  readIn: Member,
  databaseId: string,
  value: number,
  owned: readonly Holding[],
): Member | undefined {
  const candidates = fleet.members.filter((member) => readingOf(member)?.databaseId === databaseId);
  if (candidates.includes(readIn)) return readIn;
  const issuing = candidates.find((member) =>
    owned.some((holding) => holding.value === value && holding.holder === keyOf(fleet, member)),
  );
  return issuing ?? candidates[0];
}

function since(row: HolderRow): { heartbeatMs?: number } {
  return row.heartbeatMs === undefined ? {} : { heartbeatMs: row.heartbeatMs };
}

// A holder's holding read in its own database tells more than a registry's row about it.
function rank(holding: Holding): number {
  return holdingKinds.indexOf(holding.kind) * 2 + (holding.name === holding.readIn ? 0 : 1);
}
