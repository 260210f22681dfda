// The shapes the dispatcher (`classic-reading.ts`) and its dialect readers share: here rather than in
// the dispatcher, which imports the readers, so no reader has to import it back.

/** A Flickr-classic ticket table: its name as the server takes it, and its id column. */
export interface ClassicTable {
  readonly table: string;
  readonly column: string;
}

/** A value known to belong to the server's series, and what it is, for messages. */
export interface HandedOut {
  readonly what: string;
  readonly value: bigint;
}

/** What a Flickr-classic ticket server says about the tickets it handed out. */
export interface ClassicReading {
  /** The table as the server names it. */
  readonly table: string;
  /** What keeps the counter: the storage engine (MyISAM, Aria, InnoDB) or `sequence <name>`. */
  readonly counter: string;
  /** AUTO_INCREMENT (the next value) on MySQL; the sequence's last value on PostgreSQL (none before its first). */
  readonly counterValue: bigint | undefined;
  /** max(id) of the rows left: REPLACE deletes the row it replaces, so it can be below what was handed out. */
  readonly maxId: bigint | undefined;
  /** No ticket above it was ever drawn (0: none at all). */
  readonly highest: bigint;
  /** Values of the server's own series, to check the step and offset it is said to have. */
  readonly handedOut: readonly HandedOut[];
  /** The series the server is configured with, where it says (its own words in `source`). */
  readonly configured: { readonly step: number; readonly offset: number; readonly source: string } | undefined;
}
