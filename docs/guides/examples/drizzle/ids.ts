// The id source of the MySQL schema, chosen at startup (schemas are static; generators start async).
type Source = () => bigint | string | number;
let source: Source | undefined;

/** Sets the generator, e.g. `useIds(() => snowflake.next())` after `SnowflakeGenerator.start()`. */
export function useIds(next: Source): void {
  source = next;
}

/** What the schema's `$defaultFn` calls. */
export function nextId(): bigint | string | number {
  if (!source) throw new Error('no id source: call useIds() at startup');
  return source();
}
