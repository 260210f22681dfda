// Driver integers as bigints, shared by the dialect readers and the adoption SQL.

/** The largest of some bigints (0 for none): the highest ticket any of them shows. */
export function highestOf(values: readonly (bigint | undefined)[]): bigint {
  return values.reduce<bigint>((max, value) => (value !== undefined && value > max ? value : max), 0n);
}

/** A driver's integer (string, number or bigint) as a bigint; undefined for NULL. */
export function bigintOf(value: unknown): bigint | undefined {
  if (value === null || value === undefined) return undefined;
  return BigInt(value as string | number | bigint);
}
