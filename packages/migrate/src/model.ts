import type { DialectName } from '@sheaf/core';

/** A table, view, sequence or trigger: `schema` is the PostgreSQL schema or the MySQL database. */
export interface QualifiedName {
  readonly schema: string;
  readonly name: string;
}

/** How a table's integer key got its values before sheaf. */
export type KeyGenerator =
  /**
   * `serial` / `bigserial`, or any `DEFAULT nextval(…)`. `owned`: the sequence belongs to this column
   * alone (serial), so it is dropped with the old default; a shared sequence is left in place.
   */
  | { readonly kind: 'sequence'; readonly sequence: QualifiedName; readonly owned?: boolean }
  /** `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY`. */
  | { readonly kind: 'identity'; readonly always: boolean; readonly sequence: QualifiedName }
  /** MySQL/MariaDB `AUTO_INCREMENT`. */
  | { readonly kind: 'auto_increment' }
  /** The application chose the values. */
  | { readonly kind: 'none' };

/** A column that becomes `bigint`: a migrated primary key or a column referencing one. */
export interface ColumnToWiden {
  readonly table: QualifiedName;
  readonly column: string;
  /** The type as the server names it, e.g. `integer`, `int(11) unsigned`. */
  readonly dataType: string;
  readonly nullable: boolean;
  /** MySQL/MariaDB: what `modify` must restate, since it replaces the whole column definition. */
  readonly attributes?: ColumnAttributes;
}

/** A MySQL/MariaDB column's attributes besides its type and nullability. */
export interface ColumnAttributes {
  /** The default as the server prints it (`0`), or null when the column has none or defaults to NULL. */
  readonly default: string | null;
  readonly autoIncrement: boolean;
  /**
   * Set on a migrated or sheaf-keyed key with AUTO_INCREMENT: the table's counter at inspection (the
   * next value it hands out), which putting AUTO_INCREMENT back restores.
   */
  readonly counter?: bigint;
  /** The column comment; empty when there is none. */
  readonly comment: string;
}

/** A table whose single-column integer primary key moves onto sheaf ids. */
export interface TableToMigrate {
  readonly table: QualifiedName;
  readonly primaryKey: ColumnToWiden;
  readonly generator: KeyGenerator;
  /** The largest key in the table, or null when it is empty. */
  readonly maxId: bigint | null;
  readonly rowCount: bigint;
}

/** A foreign key touching a widened column: dropped before and re-created after the type change. */
export interface ForeignKey {
  readonly name: string;
  readonly table: QualifiedName;
  readonly columns: readonly string[];
  readonly references: QualifiedName;
  readonly referencedColumns: readonly string[];
  /** The constraint's definition as the server prints it (PostgreSQL `pg_get_constraintdef`), to re-create it exactly. */
  readonly definition: string;
}

/** An object that depends on a widened column and must be dropped and re-created around the change. */
export interface Dependent {
  readonly kind: 'view' | 'materialized view' | 'trigger' | 'index';
  readonly name: QualifiedName;
  /** The table it belongs to (triggers, indexes) or reads (views). */
  readonly table: QualifiedName;
  /** The statement that re-creates it. */
  readonly definition: string;
  /** Whether the change forces a drop and re-create (PostgreSQL rebuilds plain indexes itself). */
  readonly recreate: boolean;
  /** Statements run right after re-creating it to restore what `definition` lacks: owner, grants, comment, state. */
  readonly restore?: readonly string[];
}

/** A table `--all` found but leaves alone, and why (shown in the plan). */
export interface SkippedTable {
  readonly table: QualifiedName;
  /** A sentence naming the table ("table public.x has no primary key"): the plan prints it as is. */
  readonly reason: string;
  /**
   * MySQL/MariaDB: the key of a table that sheaf's trigger keys already and that still has
   * AUTO_INCREMENT; `plan(inspection, { autoIncrement: false })` drops it.
   */
  readonly autoIncrementKey?: ColumnToWiden;
}

/** What a warning is about. */
export type WarningKind =
  /** A routine or trigger with integer parameters, results or variables that may be given a migrated key. */
  | 'routine'
  /** PostgreSQL: a routine that calls currval / nextval / setval on a retired sequence, or lastval(). */
  | 'sequence-call'
  /** An integer column named like a reference to a migrated key, without a foreign key: not widened. */
  | 'unlinked-column'
  /** A sequence that fed a migrated key and is kept, since the key does not own it. */
  | 'kept-sequence'
  /** MySQL/MariaDB: LAST_INSERT_ID() no longer returns the migrated tables' new ids; or a routine or trigger calls it. */
  | 'last-insert-id';

/** An object a warning names: a routine, trigger, sequence or table, or a column (`table` with `column`). */
export interface WarnedObject extends QualifiedName {
  readonly type: 'function' | 'procedure' | 'trigger' | 'sequence' | 'table' | 'column';
  readonly column?: string;
}

/**
 * Something the migration leaves as it is that may break, or mislead, once keys are sheaf ids. Found
 * by heuristics (docs/migrating-existing-tables.md, "Warnings"): the plan shows them, changes nothing.
 */
export interface MigrationWarning {
  readonly kind: WarningKind;
  readonly objects: readonly WarnedObject[];
  /** A sentence naming the objects and what to do: the plan prints it as is. */
  readonly message: string;
}

/** What `sheaf migrate` learned from the live schema. */
export interface Inspection {
  readonly dialect: DialectName;
  readonly tables: readonly TableToMigrate[];
  /** Every column that becomes bigint, primary keys first. */
  readonly columns: readonly ColumnToWiden[];
  readonly foreignKeys: readonly ForeignKey[];
  readonly dependents: readonly Dependent[];
  /** The smallest id sheaf will issue from now on this database (idFloor of the current time and shard 0). */
  readonly sheafFloor: bigint;
  /** Tables left out: unsupported keys under `--all`, or already keyed by sheaf. */
  readonly skipped?: readonly SkippedTable[];
  /** What the migration leaves as it is and may break: narrow routines, unlinked columns, kept sequences. */
  readonly warnings?: readonly MigrationWarning[];
}

/** One statement of a migration, with what it does in words for the plan and progress lines. */
export interface MigrationStep {
  readonly sql: string;
  readonly describe: string;
  /**
   * MySQL/MariaDB: what the catalog shows once the statement has committed, and did not show before
   * it. A run killed between the statement and its journal entry is resumed (or aborted) by checking these.
   */
  readonly effect?: readonly SchemaFact[];
  /** MySQL/MariaDB: the statement that reverses this one (`abortMigration`, `sheaf migrate --abort`). */
  readonly undo?: string;
}

/** A fact about the live schema that a migration step makes true. */
export type SchemaFact =
  /** These foreign keys of `table` exist (`present`) or do not. */
  | {
      readonly kind: 'foreign keys';
      readonly table: QualifiedName;
      readonly names: readonly string[];
      readonly present: boolean;
    }
  /** These columns of `table` are signed `bigint`. */
  | { readonly kind: 'bigint columns'; readonly table: QualifiedName; readonly columns: readonly string[] }
  /** This trigger exists. */
  | { readonly kind: 'trigger'; readonly name: QualifiedName }
  /** This column of `table` exists without AUTO_INCREMENT. */
  | { readonly kind: 'no auto_increment'; readonly table: QualifiedName; readonly column: string };

/**
 * How to plan. `autoIncrement` (MySQL/MariaDB, default true): whether keys that have AUTO_INCREMENT
 * keep it. Kept, a driver's `insertId` of a one-row insert is the sheaf id the trigger set; but the
 * server then reports any id an insert gives as its insertId too, which breaks ORMs that count from
 * it (drizzle's `$returningId()`). `false` ends every such key as `bigint not null default 0`, filled
 * by the trigger, and also drops AUTO_INCREMENT from keys that sheaf's trigger keys already.
 *
 * @example
 * const migration = plan(await inspect(pool, { tables: ['orders'] }), { autoIncrement: false });
 */
export interface PlanOptions {
  readonly autoIncrement?: boolean;
  /**
   * MySQL/MariaDB: sheaf's triggers call `sheaf_<database>`.sheaf_next_id() of the inspected
   * database, which no grant on the application's database can replace (sheafTriggerSql's
   * `database`). `sheaf migrate --apply` sets it; files meant for databases of other names leave it out.
   */
  readonly triggersCallState?: boolean;
}

/** A rendered migration: the statements in order, and whether they can run in one transaction. */
export interface Migration {
  readonly dialect: DialectName;
  readonly steps: readonly MigrationStep[];
  /** PostgreSQL: true (DDL is transactional). MySQL/MariaDB: false (every DDL statement commits). */
  readonly transactional: boolean;
}

/** Row count and order-independent checksum of one table's rows, compared before and after. */
export interface TableFingerprint {
  readonly table: QualifiedName;
  readonly rows: bigint;
  /** A sum of per-row hashes modulo 2^64, as a decimal string: independent of row order and of int→bigint. */
  readonly checksum: string;
}

/** Which tables to migrate: `--all`, or `--table` names as typed (`orders` or `schema.orders`, case-sensitive). */
export type TableSelection = { readonly all: true } | { readonly tables: readonly string[] };
