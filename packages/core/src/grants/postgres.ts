import { SheafError } from '../errors.js';

/**
 * What an application role may call: taking ids, tickets, segments and worker leases, and decoding.
 * `_next_block`, `_fail`, `_iso` and `_tick` are called by those functions as the caller; none of
 * them changes state beyond taking one id. Everything else (configure, add_shard, create_ticket,
 * create_segment, batch reservation, the tables) stays with the owner.
 */
export const postgresAppFunctions: readonly string[] = [
  'sheaf.next_id()',
  'sheaf.next_id(integer)',
  'sheaf.next_ids(integer, integer)',
  'sheaf.next_id_durable(integer)',
  'sheaf.next_ids_durable(integer, integer)',
  'sheaf._next_block()',
  'sheaf._fail(text, text)',
  'sheaf._iso(bigint)',
  'sheaf._tick(timestamptz)',
  'sheaf.decode_id(bigint)',
  'sheaf.encode_id(timestamptz, integer, integer)',
  'sheaf.id_floor(timestamptz)',
  'sheaf.id_ceiling(timestamptz)',
  'sheaf.next_ticket(text)',
  'sheaf.ticket_series(text)',
  'sheaf.alloc_segment(text, integer)',
  'sheaf.segment_class(text)',
  'sheaf.alloc_segment_class(text, integer, integer, integer)',
  'sheaf.lease_worker(text, integer, integer)',
  'sheaf.lease_worker_id(text, integer, integer)',
  'sheaf.heartbeat_worker(integer, uuid, bigint, integer)',
  'sheaf.release_worker(integer, uuid, bigint)',
  'sheaf.close_worker(integer, uuid, bigint)',
];

/**
 * The bodies `next_id()` and `next_id(shard)` inline (docs/native.md): PL/pgSQL, and C while the
 * extension is installed; `sheaf._grant_native()` gives them to whoever may call `next_id()`.
 */
export const postgresNativeFunctions: readonly string[] = [
  'sheaf._plpgsql_next_id()',
  'sheaf._plpgsql_next_id(integer)',
  'sheaf._native_next_id()',
  'sheaf._native_next_id(integer)',
];

/**
 * The application's privileges on the schema and the sequences, as `[privilege, object]`, for the
 * installed SQL `version` (the latest by default). The fast path reads the published block and takes
 * counter values as the caller (no security definer on the hot path): `usage` on the counter allows
 * only `nextval`, which takes ids; `select` on a block only reads it. From 16 the fast path reads
 * `sheaf.live_block`; `sheaf.block` stays readable for sessions still in a function of before.
 */
export function postgresAppObjectPrivileges(version = Number.POSITIVE_INFINITY): (readonly [string, string])[] {
  return [
    ['usage', 'schema sheaf'],
    ['select', 'sequence sheaf.block'],
    ...(version >= 16 ? [['select', 'sequence sheaf.live_block'] as const] : []),
    ['usage', 'sequence sheaf.counter'],
  ];
}

/**
 * The statements that give `role` exactly an application's privileges on schema sheaf: whatever it
 * had there is revoked first (the same transaction makes the change atomic for running sessions).
 */
export function postgresAppGrants(role: string, version = Number.POSITIVE_INFINITY): string[] {
  const name = quoteRole(role);
  const privileges = [
    ...postgresAppObjectPrivileges(version),
    ...postgresAppFunctions.map((signature) => ['execute', `function ${signature}`] as const),
  ];
  return [
    `revoke all on all tables in schema sheaf from ${name}`,
    `revoke all on all sequences in schema sheaf from ${name}`,
    `revoke all on all functions in schema sheaf from ${name}`,
    ...privileges.map(([privilege, object]) => `grant ${privilege} on ${object} to ${name}`),
    `do $$ begin
      if to_regprocedure('sheaf._grant_native()') is not null then
        perform sheaf._grant_native();
      end if;
    end $$`,
  ];
}

function quoteRole(role: unknown): string {
  if (typeof role !== 'string' || role === '' || new TextEncoder().encode(role).length > 63 || role.includes('\0')) {
    throw new SheafError(
      'INVALID_ARGUMENT',
      `role ${JSON.stringify(role)} is not a PostgreSQL role name (1 to 63 bytes, no NUL)`,
      { details: { role } },
    );
  }
  if (role.toLowerCase() === 'public') {
    throw new SheafError('INVALID_ARGUMENT', 'PUBLIC never gets sheaf privileges: name an application role', {
      details: { role },
    });
  }
  return `"${role.replaceAll('"', '""')}"`;
}
