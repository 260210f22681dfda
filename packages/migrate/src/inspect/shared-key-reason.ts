/** A shared key's names, as the plan shows them. */
export interface SharedKeyNames {
  readonly table: string;
  readonly column: string;
  readonly foreignKey: string;
  readonly parent: string;
  readonly parentColumn: string;
}

/**
 * Why a table whose key is also its foreign key to another table's key gets no sheaf id of its own:
 * each row takes the id of its parent row, so a default (or trigger) would only make inserts that
 * leave the key out fail on the foreign key. The column still widens when the parent is migrated.
 */
export function sharedKeyReason(names: SharedKeyNames): string {
  return (
    `table ${names.table}: its key ${names.column} is also its foreign key ${names.foreignKey} to ` +
    `${names.parent} (${names.parentColumn}), a shared one-to-one key: its ids come from ${names.parent}, ` +
    `so it gets no sheaf ids of its own (migrating ${names.parent} widens it)`
  );
}
