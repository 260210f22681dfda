import { isOneDatabase, type Relation, relationOf } from './database-relation.js';
import type { IdSpaceReading } from './id-space-reading.js';
import { isUnreadable, type Snapshot } from './probe.js';

/** A snapshot of a database with sheaf installed: what the id space is compared on. */
export type Member = Snapshot & { readonly state: NonNullable<Snapshot['state']> };

/** A URL naming a database already given under another one, or a hot standby of one. */
export interface Duplicate {
  readonly snapshot: Snapshot;
  readonly of: Member;
  readonly relation: Extract<Relation, { kind: 'same' | 'standby' }>;
}

/** The databases checked, each once: compared with each other, never with themselves. */
export interface Fleet {
  /** One snapshot per installed database, in the order given. */
  readonly members: readonly Member[];
  readonly duplicates: readonly Duplicate[];
}

/**
 * Groups the snapshots by database (see {@link relationOf}): two URLs (a host name and its address,
 * a pooler) reaching one database are one, and so is a hot standby of a database given, which
 * stands in for it only when given first. Before SQL version 0009 / MySQL 0006 a MySQL database has
 * no database_id, and every URL counts as a database of its own.
 */
export function fleetOf(snapshots: readonly Snapshot[]): Fleet {
  const members: Member[] = [];
  const duplicates: Duplicate[] = [];
  for (const snapshot of snapshots) {
    if (!isMember(snapshot)) continue;
    const index = members.findIndex((member) => isOneDatabase(relationOf(member, snapshot)));
    const of = members[index];
    if (of === undefined) {
      members.push(snapshot);
      continue;
    }
    const relation = relationOf(of, snapshot) as Duplicate['relation'];
    // The primary's own state, not a standby's replayed copy of it, is what the id space holds.
    if (relation.kind === 'standby' && relation.standby === of) {
      members[index] = snapshot;
      duplicates.push({ snapshot: of, of: snapshot, relation });
    } else duplicates.push({ snapshot, of, relation });
  }
  return { members, duplicates };
}

/** Whether two snapshots are compared as one database (see {@link relationOf}). */
export function sameDatabase(a: Snapshot, b: Snapshot): boolean {
  return isOneDatabase(relationOf(a, b));
}

/** The id space a snapshot read, when it could be read. */
export function readingOf(snapshot: Snapshot): IdSpaceReading | undefined {
  return snapshot.idSpace === undefined || isUnreadable(snapshot.idSpace) ? undefined : snapshot.idSpace;
}

function isMember(snapshot: Snapshot): snapshot is Member {
  return snapshot.state !== undefined;
}
