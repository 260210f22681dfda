import { postgresFiles } from './install/files.generated.js';

/** One signature of a `sheaf.` function: its input types, and how many of them have no default. */
interface Signature {
  readonly types: readonly string[];
  readonly required: number;
}

/** Spellings in our SQL, as PostgreSQL names the types in its messages. */
const aliases: Readonly<Record<string, string>> = {
  int: 'integer',
  int4: 'integer',
  int8: 'bigint',
  bool: 'boolean',
  timestamptz: 'timestamp with time zone',
  varchar: 'character varying',
};

/** Argument types PostgreSQL converts implicitly to a parameter's type (the few our functions take). */
const implicit: Readonly<Record<string, readonly string[]>> = {
  bigint: ['smallint', 'integer'],
  integer: ['smallint'],
  text: ['character varying', 'character', 'name'],
  'timestamp with time zone': ['timestamp without time zone', 'date'],
};

let signatures: Map<string, Signature[]> | undefined;

/** Every `sheaf.` function the package's PostgreSQL files create, read from the embedded SQL once. */
function packageSignatures(): Map<string, Signature[]> {
  if (signatures) return signatures;
  signatures = new Map();
  for (const file of postgresFiles) {
    for (const match of file.sql.matchAll(/\bcreate\s+(?:or\s+replace\s+)?function\s+sheaf\.(\w+)\s*\(([^)]*)\)/gi)) {
      const name = match[1]!.toLowerCase();
      signatures.set(name, [...(signatures.get(name) ?? []), signatureOf(match[2]!)]);
    }
  }
  return signatures;
}

/** The input parameters of a parameter list such as `n integer, shard integer default {shard}`. */
function signatureOf(list: string): Signature {
  const params = list
    .split(/,(?=(?:[^']*'[^']*')*[^']*$)/) // commas outside quoted defaults
    .map((param) => param.trim().toLowerCase())
    .filter((param) => param !== '' && !/^(out|inout)\s/.test(param))
    .map((param) => param.replace(/^(in|variadic)\s+/, ''));
  const withoutName = params.map((param) => param.replace(/^("[^"]*"|\w+)\s+/, ''));
  return {
    types: withoutName.map((param) => normalType(param.split(/\s+default\s|\s*=/)[0]!)),
    required: params.filter((param) => !/\sdefault\s|=/.test(param)).length,
  };
}

function normalType(type: string): string {
  const trimmed = type.trim().toLowerCase();
  return aliases[trimmed] ?? trimmed;
}

/**
 * Whether some version of sheaf's function `name` takes arguments of `given` types (as PostgreSQL
 * lists them in error 42883). When it does, a 42883 means that the function is missing from the
 * database (sheaf not installed, or an older version of it); otherwise the call's arguments are wrong.
 *
 * @example
 * packageFunctionTakes('next_ids', ['unknown']); // true
 * packageFunctionTakes('next_ids', ['numeric']); // false
 */
export function packageFunctionTakes(name: string, given: readonly string[]): boolean {
  const types = given.map(normalType);
  return (packageSignatures().get(name.toLowerCase()) ?? []).some(
    (signature) =>
      types.length >= signature.required &&
      types.length <= signature.types.length &&
      types.every((type, i) => fits(type, signature.types[i]!)),
  );
}

function fits(given: string, declared: string): boolean {
  return given === 'unknown' || given === declared || (implicit[declared] ?? []).includes(given);
}
