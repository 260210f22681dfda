import { SheafError } from './errors.js';
import { detailValue, formatArgument, formatValue, jsonSafe, typeName } from './format.js';
import { createLayout, type Layout } from './layout.js';

/**
 * Frozen layouts already checked. Only frozen ones are trusted for good: a mutable object could
 * change after its check and encode with bits it was never checked for. A WeakSet, not a brand,
 * because a layout made by another copy of this package (or a frozen copy a caller made) carries no
 * brand of ours.
 */
const checked = new WeakSet<object>();
/**
 * Mutable layouts already checked, with what their fields were then: comparing the fields again costs
 * far less than deriving them again, and still catches a change made since.
 */
const checkedAsWas = new WeakMap<object, Layout>();
/** The layout checked last: most programs use one, and comparing it is cheaper than the WeakSet. */
let last: Layout | undefined;

/** Every field of a layout, in the order a mismatch is reported: the given ones, then the derived ones. */
const fields = [
  'name',
  'epoch',
  'timeBits',
  'shardBits',
  'sequenceBits',
  'maxShard',
  'maxSequence',
  'lastMs',
  'maxId',
  'safeIntegerIds',
  'timeShift',
  'shardShift',
  'shardMask',
  'sequenceMask',
  'lowMask',
] as const satisfies readonly (keyof Layout)[];

/**
 * `value` itself when it is a layout whose every field is what its epoch and bits give (presets and
 * `defineLayout` results always are); `INVALID_LAYOUT` naming the bad value otherwise. The first
 * check of a frozen layout is remembered, so the hot paths of encode and decode pay a comparison (a
 * WeakSet lookup when several layouts alternate); a mutable copy has its fields compared on every call.
 *
 * @example
 * checkLayout(presets.sheaf) === presets.sheaf; // true
 * checkLayout({}); // throws INVALID_LAYOUT: layout "custom": timeBits undefined is not an integer from 1 to 64
 */
export function checkLayout(value: unknown): Layout {
  // Kept this small so that V8 inlines it into encode and decode; the rest is out of line.
  return value === last ? (value as Layout) : checkAgain(value);
}

function checkAgain(value: unknown): Layout {
  if (checked.has(value as object)) {
    last = value as Layout;
    return last;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new SheafError(
      'INVALID_LAYOUT',
      `layout ${formatArgument(value)} is not a layout: pass a preset (presets.sheaf) or the result of defineLayout()`,
      { details: { type: typeName(value) } },
    );
  }
  const given = value as Layout;
  const was = checkedAsWas.get(given);
  if (was !== undefined && unchanged(given, was)) return given;
  // Refuses bad bits, names and epochs with defineLayout's own messages; the clock is not checked,
  // since ids of a layout that has run out must still decode.
  const expected = createLayout(given);
  if (typeof given.maxId !== 'bigint') {
    throw new SheafError(
      'INVALID_LAYOUT',
      `layout "${expected.name}" has no maxId: these are layout options, not a layout; pass them to defineLayout() first`,
      { details: { layout: expected.name, field: 'maxId', value: detailValue(given.maxId) } },
    );
  }
  checkFields(given, expected);
  if (Object.isFrozen(given)) {
    checked.add(given);
    last = given;
  } else {
    checkedAsWas.set(given, expected);
  }
  return given;
}

function checkFields(given: Layout, expected: Layout): void {
  for (const field of fields) {
    if (Object.is(given[field], expected[field])) continue;
    throw new SheafError(
      'INVALID_LAYOUT',
      `layout "${expected.name}": ${field} ${formatValue(given[field])} does not match its epoch and bits ` +
        `(expected ${formatValue(expected[field])}); make layouts with defineLayout(), not by hand`,
      {
        details: {
          layout: expected.name,
          field,
          value: detailValue(given[field]),
          expected: jsonSafe(expected[field]),
        },
      },
    );
  }
}

/** Field by field, spelled out: named reads are several times faster than a loop over the names. */
function unchanged(given: Layout, was: Layout): boolean {
  return (
    given.name === was.name &&
    given.epoch === was.epoch &&
    given.timeBits === was.timeBits &&
    given.shardBits === was.shardBits &&
    given.sequenceBits === was.sequenceBits &&
    given.maxShard === was.maxShard &&
    given.maxSequence === was.maxSequence &&
    given.lastMs === was.lastMs &&
    given.maxId === was.maxId &&
    given.safeIntegerIds === was.safeIntegerIds &&
    given.timeShift === was.timeShift &&
    given.shardShift === was.shardShift &&
    given.shardMask === was.shardMask &&
    given.sequenceMask === was.sequenceMask &&
    given.lowMask === was.lowMask
  );
}
