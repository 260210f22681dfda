import { SheafError } from '../errors.js';
import type { SqlExecutor } from '../executor.js';
import { postgresFiles } from './files.generated.js';

/** How an install reads and switches the path `sheaf.next_id()` runs on (docs/native.md). */
export interface NativePathInstall {
  /** The first file version that knows the native path. */
  readonly from: number;
  choose(session: SqlExecutor, wanted: boolean | undefined): Promise<void>;
}

interface NativeState {
  chosen: boolean | null;
  installed: boolean;
  available: boolean;
  modern: boolean;
  mayCreate: boolean;
}

const stateQuery = `
  select s.native as chosen,
    exists (select from pg_extension e where e.extname = 'sheaf_native') as installed,
    exists (select from pg_available_extensions a where a.name = 'sheaf_native') as available,
    current_setting('server_version_num')::int >= 140000 as modern,
    (select r.rolsuper from pg_roles r where r.rolname = current_user)
      or has_database_privilege(current_database(), 'CREATE') as "mayCreate"
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
    const native = wanted ?? state.chosen ?? usable(state);
    if (native === state.chosen && native === state.installed) return;
    if (native) {
      refuseUnusable(state);
      await session.query('create extension if not exists sheaf_native schema sheaf');
      await session.query('update sheaf.settings set native = true');
      await session.query('select sheaf._bake()');
      return;
    }
    await session.query('update sheaf.settings set native = false');
    await session.query('select sheaf._bake()');
    await session.query('drop extension if exists sheaf_native');
  },
};

function usable(state: NativeState): boolean {
  return state.available && state.modern && state.mayCreate;
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
  if (!state.mayCreate) {
    throw new SheafError(
      'NATIVE_UNAVAILABLE',
      'creating the extension sheaf_native needs the CREATE privilege on this database (or a superuser)',
    );
  }
}

function fileVersion(name: string): number {
  const file = postgresFiles.find((candidate) => candidate.name === name);
  if (!file) throw new Error(`sheaf: the PostgreSQL SQL file ${name} is missing from this package`);
  return file.version;
}
