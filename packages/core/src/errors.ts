/**
 * Every code a {@link SheafError} can carry, as a runtime list (for CLIs mapping codes and for
 * docs checks). Adding a code is one line here; the {@link SheafErrorCode} union follows.
 *
 * @example
 * sheafErrorCodes.includes('INVALID_ID'); // true
 */
export const sheafErrorCodes = Object.freeze([
  'INVALID_LAYOUT',
  'INVALID_TIME',
  'TIME_BEFORE_EPOCH',
  'TIME_EXHAUSTED',
  'SHARD_OUT_OF_RANGE',
  'SEQUENCE_OUT_OF_RANGE',
  'INVALID_ID',
  'ID_OUT_OF_RANGE',
  'INVALID_ARGUMENT',
  'LAYOUT_LOCKED',
  'UNKNOWN_TICKET',
  'UNKNOWN_SEGMENT',
  'NAME_TAKEN',
  'SEGMENT_EXHAUSTED',
  'SEGMENT_CLASS_MISMATCH',
  'INSTALL_CONFLICT',
  'NOT_INSTALLED',
  'IN_USE',
  'WORKERS_EXHAUSTED',
  'LEASE_LOST',
  'LEASE_EXPIRED',
  'CLOCK_MOVED_BACKWARDS',
  'CLOCK_BEHIND_WORKER',
  'SEGMENT_UNAVAILABLE',
  'TICKETS_UNAVAILABLE',
  'TICKETS_OVERLAP',
  'TICKET_SERIES_MISMATCH',
  'BATCH_UNAVAILABLE',
  'GENERATOR_CLOSED',
  'UNSUPPORTED_DIALECT',
  'SERVER_CONFIG',
  'IDS_UNAVAILABLE',
  'UNKNOWN_TABLE',
  'UNSUPPORTED_KEY',
  'KEYS_ABOVE_FLOOR',
  'VERIFY_FAILED',
  'GENERATOR_BUSY',
  'SHARD_NOT_OWNED',
  'UNSAFE_GRANTS',
  'UNSAFE_OWNERSHIP',
  'SHARD_TAKEN',
  'REGISTRY_ELSEWHERE',
  'REGISTRY_UNAVAILABLE',
  'MIGRATION_UNFINISHED',
  'MIGRATION_INTERRUPTED',
  'JOURNAL_UNTRUSTED',
  'NATIVE_UNAVAILABLE',
  'READ_ONLY',
  'REPAIR_REFUSED',
  'DATABASE_COPIED',
  'STATE_DAMAGED',
  'NODE_UNBOUND',
  'NATIVE_BUILD_FAILED',
] as const);

/**
 * Stable machine-readable reason of a {@link SheafError}; see docs/errors.md.
 *
 * @example
 * const code: SheafErrorCode = 'SHARD_OUT_OF_RANGE';
 */
export type SheafErrorCode = (typeof sheafErrorCodes)[number];

/**
 * Extra information attached to a {@link SheafError}.
 *
 * @example
 * const options: SheafErrorOptions = { details: { shardId: 5000, max: 4095 } };
 */
export interface SheafErrorOptions {
  /** The underlying error (a driver error, say), kept as the standard ES2022 `cause`. */
  readonly cause?: unknown;
  /** The offending value and the limit it broke; bigints are stored as decimal strings. */
  readonly details?: Record<string, unknown>;
}

// Symbol.for is shared by every copy of the package loaded in one process, so the brand survives
// duplicated installs where `instanceof SheafError` would be false.
const brand = Symbol.for('sheaf.error');

/** Messages from SQL already carry the prefix; adding it again would read "sheaf: sheaf: …". */
const prefix = 'sheaf: ';

/**
 * The one error type of sheaf: a stable `code`, a message naming the bad value and the limit,
 * and optional `cause` and `details`. Test for it with {@link isSheafError}, not `instanceof`.
 *
 * @example
 * throw new SheafError('SHARD_OUT_OF_RANGE', 'shard 5000 does not fit 12 shard bits (max 4095)', {
 *   details: { shardId: 5000, shardBits: 12, max: 4095 },
 * });
 */
export class SheafError extends Error {
  override readonly name = 'SheafError';
  readonly code: SheafErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: SheafErrorCode, message: string, options?: SheafErrorOptions | null) {
    const text = message.startsWith(prefix) ? message : prefix + message;
    // `?.`: an error must get built whatever it is given (null options included), or the TypeError
    // of building it would hide the error being reported.
    super(text, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options?.details !== undefined) this.details = options.details;
  }
}

Object.defineProperty(SheafError.prototype, brand, { value: true });

/**
 * Tells whether `value` is a {@link SheafError} from any copy of the package, optionally with a given code.
 *
 * @example
 * try {
 *   parseId('12a');
 * } catch (error) {
 *   if (isSheafError(error, 'INVALID_ID')) console.error(error.message);
 * }
 */
export function isSheafError(value: unknown, code?: SheafErrorCode): value is SheafError {
  if (typeof value !== 'object' || value === null) return false;
  if ((value as Record<symbol, unknown>)[brand] !== true) return false;
  return code === undefined || (value as { code?: unknown }).code === code;
}
