import type { IdSpaceReading } from './id-space-reading.js';
import { isUnreadable, type Snapshot } from './probe.js';

/** A snapshot of a database with sheaf installed: what the id space is compared on. */
export type Member = Snapshot & { readonly state: NonNullable<Snapshot['state']> };

/** A URL naming a database already given under another one. */
export interface Duplicate {
  readonly snapshot: Snapshot;
  readonly of: Member;
  readonly databaseId: string;
}

/** The databases checked, each once: compared with each other, never with themselves. */
export interface Fleet {
  /** One snapshot per installed database, in the order given. */
  readonly members: readonly Member[];
  readonly duplicates: readonly Duplicate[];
}

/**
 * Groups the snapshots by database: two URLs (a host name and its address, a pooler) reaching a
 * database with one `database_id` are one database. Before SQL version 0009 / MySQL 0006 there is
 * no database_id, and every URL counts as a database of its own.
 */
export function fleetOf(snapshots: readonly Snapshot[]): Fleet {
  const members: Member[] = [];
  const duplicates: Duplicate[] = [];
  for (const snapshot of snapshots) {
    if (!isMember(snapshot)) continue;
    const of = members.find((member) => sameDatabase(member, snapshot));
    if (of) duplicates.push({ snapshot, of, databaseId: databaseIdOf(snapshot)! });
    else members.push(snapshot);
  }
  return { members, duplicates };
}

/** Whether two snapshots are of one database: the same snapshot, or one `database_id`. */
export function sameDatabase(a: Snapshot, b: Snapshot): boolean {
  const id = databaseIdOf(a);
  return a === b || (id !== undefined && id === databaseIdOf(b));
}

/** The id space a snapshot read, when it could be read. */
export function readingOf(snapshot: Snapshot): IdSpaceReading | undefined {
  return snapshot.idSpace === undefined || isUnreadable(snapshot.idSpace) ? undefined : snapshot.idSpace;
}

function databaseIdOf(snapshot: Snapshot): string | undefined {
  return readingOf(snapshot)?.databaseId;
}

function isMember(snapshot: Snapshot): snapshot is Member {
  return snapshot.state !== undefined;
}
