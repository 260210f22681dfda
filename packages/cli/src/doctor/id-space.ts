import { type Fleet, type Member, readingOf } from './fleet.js';
import type { HolderRow, IdSpaceReading } from './id-space-reading.js';

/** How a shard value is held, most telling first. */
const holdingKinds = ['configured', 'logical', 'registered', 'pending', 'leased'] as const;
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
 * workers table, live worker leases and databases registered there (confirmed or pending).
 */
export function holdingsOf(fleet: Fleet): Holding[] {
  const named = new Map<string, string>();
  for (const member of fleet.members) {
    const id = readingOf(member)?.databaseId;
    if (id !== undefined) named.set(id, member.label);
  }
  return fleet.members.flatMap((member) => {
    const reading = readingOf(member);
    const own = databaseKey(member, reading);
    const ofDatabase = (value: number, kind: HoldingKind): Holding => ({
      value,
      kind,
      holder: own,
      readIn: member.label,
      name: member.label,
    });
    const rows = (reading?.holders ?? []).map((row) => rowHolding(member, row, named));
    return [
      ofDatabase(member.state.shard, 'configured'),
      ...(reading?.logicalShards ?? []).map((value) => ofDatabase(value, 'logical')),
      ...rows,
    ];
  });
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
  if (kind === 'logical') return `a logical shard of ${readIn}`;
  if (kind === 'registered') return `registered in ${readIn}${target}`;
  if (kind === 'pending') return `claimed in ${readIn}${target}, not confirmed`;
  return `leased by worker '${name}' in ${readIn}`;
}

function rowHolding(member: Member, row: HolderRow, named: ReadonlyMap<string, string>): Holding {
  const base = { value: row.value, readIn: member.label, ...since(row) };
  if (row.kind === 'worker') {
    return { ...base, kind: 'leased', holder: `worker ${member.label} ${row.value}`, name: row.holder };
  }
  const id = row.databaseId ?? '';
  const name = named.get(id) ?? `database '${row.holder}' (${id})`;
  return { ...base, kind: row.pending ? 'pending' : 'registered', holder: `database ${id}`, name, databaseId: id };
}

// Without a database_id (before SQL version 0009 / MySQL 0006) a database is known by its URL.
function databaseKey(member: Member, reading: IdSpaceReading | undefined): string {
  return reading?.databaseId === undefined ? `url ${member.label}` : `database ${reading.databaseId}`;
}

function since(row: HolderRow): { heartbeatMs?: number } {
  return row.heartbeatMs === undefined ? {} : { heartbeatMs: row.heartbeatMs };
}

// A holder's holding read in its own database tells more than a registry's row about it.
function rank(holding: Holding): number {
  return holdingKinds.indexOf(holding.kind) * 2 + (holding.name === holding.readIn ? 0 : 1);
}
