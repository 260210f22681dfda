import { type Check, check } from './check.js';
import { clashChecks } from './clash-checks.js';
import { type Duplicate, fleetOf } from './fleet.js';
import { holdingsOf } from './id-space.js';
import { idSpaceCheck } from './id-space-check.js';
import { layoutsCheck } from './layouts-check.js';
import type { Snapshot } from './probe.js';
import { registryChecks } from './registry-check.js';
import { ticketsChecks } from './tickets-check.js';

/** The checks of the databases as one id space, after the checks of each. */
export interface IdSpaceReport {
  /** The databases compared, each once. */
  readonly databases: readonly string[];
  readonly checks: readonly Check[];
}

/**
 * The databases checked as one id space: URLs of one database, registries not given, layouts,
 * shard values held twice, claims not confirmed, tickets, and the shard values left. Undefined for
 * one database with nothing to say, so `sheaf doctor` of one database reads as it always has.
 */
export function idSpaceReport(snapshots: readonly Snapshot[]): IdSpaceReport | undefined {
  const fleet = fleetOf(snapshots);
  const holdings = holdingsOf(fleet);
  const several = fleet.members.length > 1;
  const findings = [...fleet.duplicates.map(duplicateCheck), ...registryChecks(fleet), ...clashChecks(holdings, fleet)];
  if (!several && findings.length === 0) return undefined;
  const checks = [
    ...(several ? [layoutsCheck(fleet.members)] : []),
    ...findings,
    ...(several ? ticketsChecks(fleet.members) : []),
    idSpaceCheck(fleet, holdings),
  ];
  return { databases: fleet.members.map((member) => member.label), checks };
}

// A warning: the URL someone took for another database reaches one already checked, so that other
// database, if there is one, was not checked at all. A hot standby of a database given is fine.
function duplicateCheck({ snapshot, of, relation }: Duplicate): Check {
  if (relation.kind === 'standby') {
    const { standby, primary, identity } = relation;
    return check(
      'same database',
      'ok',
      `${standby.label} is a hot standby of ${primary.label} (node identity ${identity}, in recovery): ` +
        'it issues no ids; compared once',
      { details: { database: snapshot.label, sameAs: of.label, standby: standby.label, nodeIdentity: identity } },
    );
  }
  return check(
    'same database',
    'warn',
    `${snapshot.label} is ${of.label} (${relation.by}): compared once, not with itself`,
    {
      details: { database: snapshot.label, sameAs: of.label, by: relation.by },
    },
  );
}
