import { defineLayout, isSheafError, layoutLifetime, sqlVersion } from '@sheaf/core';
import type { InstalledState } from '../installed-state.js';
import { redactText } from '../redact.js';
import { type Check, check } from './check.js';
import { galeraCheck } from './galera-check.js';
import { grantsCheck } from './grants-check.js';
import { lastIdCheck } from './last-id-check.js';
import { bare, layoutCheck } from './layout-check.js';
import { legacyJournalCheck } from './legacy-journal-check.js';
import { nodeIdentityCheck } from './node-identity-check.js';
import { ownershipCheck } from './ownership-check.js';
import type { Snapshot } from './probe.js';
import { probeSql } from './probe-sql.js';
import { replicationCheck } from './replication-check.js';
import { saturationCheck } from './saturation-check.js';
import { segmentsCheck } from './segments-check.js';
import { shardCheck } from './shard-check.js';
import { skewCheck } from './skew-check.js';
import { stateCheck } from './state-check.js';
import { triggersCheck } from './triggers-check.js';
import { versionCheck } from './version-check.js';
import { workersCheck } from './workers-check.js';

/** Every check of one database; `all` holds every database checked, for the checks across them. */
export function checksFor(snapshot: Snapshot, all: readonly Snapshot[], nowMs: number): Check[] {
  if (snapshot.error !== undefined) return [unreachableCheck(snapshot.error)];
  const { state, clock, generator } = snapshot;
  const checks = [versionCheck(snapshot.version, sqlVersion(snapshot.target.dialect))];
  if (clock) checks.push(skewCheck(clock));
  const damaged = stateCheck(snapshot.target, snapshot.gaps ?? []);
  if (damaged) checks.push(damaged);
  const replicated = snapshot.replicated === undefined ? [] : [replicationCheck(snapshot.replicated)];
  if (!state || !generator) return [...checks, ...replicated];
  const { lookaheadMs, counter, repair } = probeSql[snapshot.target.dialect];
  const node = nodeIdentityCheck(snapshot.target, snapshot.node);
  const galera = galeraCheck(snapshot.galera, {
    target: snapshot.target,
    version: snapshot.version ?? 0,
    configuredShard: state.shard,
  });
  checks.push(
    layoutCheck(state, nowMs),
    shardCheck(snapshot, all),
    ...(node ? [node] : []),
    ...(galera ? [galera] : []),
    lastIdCheck(generator, { lookaheadMs, name: counter, layoutEndMs: layoutEnd(state), repair }),
    saturationCheck(generator, lookaheadMs, state.layout.sequenceBits),
  );
  if (snapshot.workers !== undefined) checks.push(workersCheck(snapshot.workers, state.layout.shardBits));
  if (snapshot.segments !== undefined) checks.push(...segmentsCheck(snapshot.segments));
  if (snapshot.grants !== undefined) checks.push(grantsCheck(snapshot.grants, snapshot.target.dialect));
  if (snapshot.owners !== undefined) checks.push(ownershipCheck(snapshot.owners, snapshot.target.dialect));
  if (snapshot.triggers !== undefined) checks.push(triggersCheck(snapshot.triggers, state.layout));
  if (snapshot.legacyJournal !== undefined) checks.push(legacyJournalCheck(snapshot.legacyJournal));
  return [...checks, ...replicated];
}

// Undefined for a layout defineLayout refuses: the layout check reports it.
function layoutEnd(state: InstalledState): number | undefined {
  try {
    return layoutLifetime(defineLayout(state.layout)).getTime();
  } catch (error) {
    if (isSheafError(error)) return undefined;
    throw error;
  }
}

// Named for the database as a whole: connecting or reading its state failed, so nothing else was judged.
function unreachableCheck(error: unknown): Check {
  if (isSheafError(error)) return check('database', 'fail', redactText(bare(error.message)), { code: error.code });
  // Driver errors (refused, bad password) say what is wrong in their message and code.
  const message = error instanceof Error ? error.message || String(error) : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  return check('database', 'fail', redactText(`${message}${typeof code === 'string' ? ` (${code})` : ''}`));
}
