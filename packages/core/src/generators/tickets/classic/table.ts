import { SheafError } from '../../../errors.js';
import { formatValue } from '../../../format.js';

/** A classic table, its names checked: what the dialect's source is made from. */
export interface ClassicTable {
  readonly table: string;
  readonly schema: string | undefined;
  readonly stub: string;
}

/** What the check of a classic server found out about its table. */
export interface ClassicTableShape {
  readonly found: boolean;
  /** `id` takes the server's counter (AUTO_INCREMENT, or a sequence of its own). */
  readonly counted: boolean;
  /** `stub` alone has a unique key: each ticket replaces its row instead of adding one. */
  readonly stubUnique: boolean;
  /** Characters `stub` holds, when limited. */
  readonly stubLength: number | undefined;
  /** The counter in the server's words, for messages. */
  readonly counter: string;
}

/**
 * The error for a table that cannot serve Flickr tickets, or undefined when it can. A mistake, not
 * an outage: the client throws it instead of failing over to another server.
 */
export function classicTableError(
  target: ClassicTable,
  where: string,
  shape: ClassicTableShape,
): SheafError | undefined {
  const table = target.schema === undefined ? target.table : `${target.schema}.${target.table}`;
  const details = { table: target.table, schema: target.schema ?? null, where };
  if (!shape.found) {
    return new SheafError(
      'UNKNOWN_TABLE',
      `no ticket table ${formatValue(table)} in ${where}: classicTickets reads Flickr's table, whose id takes ` +
        `${shape.counter} values and whose stub has a unique key`,
      { details },
    );
  }
  if (!shape.counted) {
    return new SheafError(
      'UNSUPPORTED_KEY',
      `ticket table ${formatValue(table)} in ${where}: its id column takes no ${shape.counter} values, so it hands out no tickets`,
      { details },
    );
  }
  if (!shape.stubUnique) {
    return new SheafError(
      'UNSUPPORTED_KEY',
      `ticket table ${formatValue(table)} in ${where}: its stub column has no unique key of its own, so each ticket ` +
        'would add a row instead of replacing one',
      { details },
    );
  }
  if (shape.stubLength !== undefined && [...target.stub].length > shape.stubLength) {
    return new SheafError(
      'INVALID_ARGUMENT',
      `classicTickets: stub ${formatValue(target.stub)} is longer than ${table}.stub holds (${shape.stubLength} characters) in ${where}`,
      { details: { ...details, stub: target.stub, max: shape.stubLength } },
    );
  }
  return undefined;
}
