import { type Check, check } from './check.js';
import { type Fleet, readingOf } from './fleet.js';

/** The registry's id at the end of its description, `name (database_id)`. */
const registryId = /\(([0-9a-f-]{36})\)\s*$/i;

/**
 * A warning per database whose shards are registered in a database that was not given: the other
 * registrations there, and the worker leases of its applications (leased from the registry), are
 * not compared.
 */
export function registryChecks(fleet: Fleet): Check[] {
  const given = new Set(fleet.members.map((member) => readingOf(member)?.databaseId?.toLowerCase()));
  return fleet.members.flatMap((member) => {
    const registry = readingOf(member)?.registry;
    if (registry === undefined) return [];
    const id = registryId.exec(registry)?.[1]?.toLowerCase();
    if (id !== undefined && given.has(id)) return [];
    return [
      check(
        'registry',
        'warn',
        `${member.label} registers its shards in ${registry}, which was not given: the registrations and ` +
          'worker leases there are not compared (add it as --url)',
        { details: { database: member.label, registry } },
      ),
    ];
  });
}
