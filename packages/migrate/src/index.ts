export { type ApplyOptions, applyMigration, touchedTables } from './apply/apply.js';
export type { ApplyResult } from './apply/apply-result.js';
export type { StepBoundary } from './apply/boundaries.js';
export { type AbortResult, abortMigration } from './apply/journal-abort.js';
export { resumeMigration } from './apply/journal-run.js';
export type { JournalState, MigrationRecord } from './apply/journal-store.js';
export { journalUntrusted } from './apply/journal-trust.js';
export { type MigrationStatus, migrationStatus, type OnlineTableStatus } from './apply/migration-status.js';
export type { RunOptions } from './apply/run-options.js';
export { clientScript } from './formats/client-script.js';
export type { FormatInput, FormatOutput, MigrationFile } from './formats/format-common.js';
export { type FormatName, formats, writeMigration } from './formats/formats.js';
export { mysqlSheafTriggers } from './inspect/mysql-keys.js';
export { fingerprint, inspect, plan } from './migrate.js';
export type {
  ColumnAttributes,
  ColumnToWiden,
  Dependent,
  ForeignKey,
  Inspection,
  KeyGenerator,
  Migration,
  MigrationStep,
  MigrationWarning,
  PlanOptions,
  QualifiedName,
  SchemaFact,
  SkippedTable,
  TableFingerprint,
  TableSelection,
  TableToMigrate,
  WarnedObject,
  WarningKind,
} from './model.js';
export { display as displayName } from './names.js';
export { type OnlineOptions, runOnline } from './online/online-postgres.js';
export type { Output } from './output.js';
export { planText } from './plan/plan-text.js';
