import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { postgresFiles } from './files.generated.js';

/** How an install reads and switches the path `sheaf.next_id()` runs on (docs/native.md). */
export interface NativePathInstall {
  /** The first file version that knows the native path. */
  readonly from: number;
  choose(session: SqlExecutor, wanted: boolean | undefined): Promise<void>;
  /** The statements that switch an installed database to the native path or to PL/pgSQL. */
  statements(native: boolean): readonly string[];
}

interface NativeState {
  chosen: boolean | null;
  installed: boolean;
  available: boolean;
  modern: boolean;
  mayCreate: boolean;
  /** The extension's owner when another role than the installing one owns it. */
  foreignOwner: string | null;
}

const stateQuery = `
  select s.native as chosen,
    exists (select from pg_extension e where e.extname = 'sheaf_native') as installed,
    exists (select from pg_available_extensions a where a.name = 'sheaf_native') as available,
    current_setting('server_version_num')::int >= 140000 as modern,
    (select r.rolsuper from pg_roles r where r.rolname = current_user) as "mayCreate",
    (select e.extowner::regrole::text from pg_extension e
      where e.extname = 'sheaf_native'
        and e.extowner <> (select r.oid from pg_roles r where r.rolname = current_user)) as "foreignOwner"
  from sheaf.settings s`;

/**
 * PostgreSQL: switches to the C path where it is wanted (or, when nobody chose yet, where it can
 * run) and back to PL/pgSQL otherwise, in the install's transaction. `wanted` undefined keeps the
 * recorded choice.
 */
export const postgresNativePath: NativePathInstall = {
  from: fileVersion('native_path'),
  async choose(session, wanted) {
    const [state] = await session.query<NativeState>(stateQuery);
    if (!state) return;
    // `create extension if not exists` would take another role's extension as sheaf's.
    if (state.foreignOwner !== null) throw foreignExtension(state.foreignOwner);
    const native = wanted ?? state.chosen ?? usable(state);
    if (native === state.chosen && native === state.installed) return;
    if (native) refuseUnusable(state);
    for (const statement of switchTo(native)) await session.query(statement);
  },
  statements: switchTo,
};

// PL/pgSQL is baked before the extension goes: next_id() never calls a function that is gone.
function switchTo(native: boolean): readonly string[] {
  return native
    ? [
        'create extension if not exists sheaf_native schema sheaf',
        'update sheaf.settings set native = true',
        'select sheaf._bake()',
      ]
    : ['update sheaf.settings set native = false', 'select sheaf._bake()', 'drop extension if exists sheaf_native'];
}

// An extension already there is the installing role's own (checked above), so it may keep it.
function usable(state: NativeState): boolean {
  return state.available && state.modern && (state.mayCreate || state.installed);
}

function foreignExtension(owner: string): SheafError {
  return new SheafError(
    'UNSAFE_OWNERSHIP',
    `extension sheaf_native is owned by role ${owner}, not by the role installing sheaf: as a superuser, move ` +
      'next_id() back to PL/pgSQL and drop extension sheaf_native, then install again (docs/security.md, Ownership)',
    { details: { object: 'extension sheaf_native', owner } },
  );
}

function refuseUnusable(state: NativeState): void {
  if (!state.available) {
    throw new SheafError(
      'NATIVE_UNAVAILABLE',
      'the extension sheaf_native is not installed on this PostgreSQL server: build and install native/postgres ' +
        '(docs/native.md), or install without --native to use PL/pgSQL',
    );
  }
  if (!state.modern) {
    throw new SheafError('NATIVE_UNAVAILABLE', 'the native path needs PostgreSQL 14 or later');
  }
  if (!state.mayCreate && !state.installed) {
    throw new SheafError(
      'NATIVE_UNAVAILABLE',
      'creating the extension sheaf_native needs a superuser (it runs C code, so it is not trusted): install ' +
        'sheaf as a superuser for the native path, or without --native to use PL/pgSQL (docs/native.md)',
    );
  }
}

function fileVersion(name: string): number {
  const file = postgresFiles.find((candidate) => candidate.name === name);
  if (!file) throw new Error(`sheaf: the PostgreSQL SQL file ${name} is missing from this package`);
  return file.version;
}

/** Why `native: true` cannot apply: a dialect without the path, or files that stop before it. */
export function nativeOutOfReach(path: NativePathInstall | undefined, version: number): SheafError {
  return new SheafError(
    'NATIVE_UNAVAILABLE',
    path
      ? `the native path needs sheaf SQL version ${path.from}; this install stops at ${version}`
      : 'the native path is PostgreSQL only: MySQL and MariaDB run sheaf_next_id() as a stored function',
  );
}
