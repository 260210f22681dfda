import { q } from './online-names.js';

/**
 * Rewrites an index predicate as `pg_get_expr` prints it so that it reads the shadow columns:
 * `(customer_id > 100)` becomes `(customer_id_sheaf > 100)`. Only tokens in a column reference's
 * place are renamed: string literals and quoted names are read whole, a word after `.`, `::` or
 * COLLATE (a qualified name, a type, a collation) or before `(`, `.` or `=>` (a function, a schema, a
 * named argument) is kept. The deparser prints keywords in upper case and a column name unquoted only
 * when it is lower case and no reserved word, so an exact, case-sensitive match is a column reference.
 */
export function renamePredicateColumns(predicate: string, renames: ReadonlyMap<string, string>): string {
  const tokens = tokenize(predicate);
  return tokens
    .map((token, index) => {
      const name = token.kind === 'word' ? token.text : token.kind === 'quoted' ? unquote(token.text) : undefined;
      const shadow = name === undefined ? undefined : renames.get(name);
      if (shadow === undefined || !inColumnPlace(tokens, index)) return token.text;
      return q(shadow);
    })
    .join('');
}

interface Token {
  readonly kind: 'word' | 'quoted' | 'string' | 'space' | 'other';
  readonly text: string;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const rest = text.slice(at);
    const match =
      /^\s+/.exec(rest) ??
      /^"(?:[^"]|"")*"/.exec(rest) ??
      // E'…' (backslash escapes) or '…' ('' for a quote).
      /^[Ee]'(?:[^'\\]|\\.|'')*'/.exec(rest) ??
      /^'(?:[^']|'')*'/.exec(rest) ??
      /^\d+(?:\.\d*)?(?:[Ee][+-]?\d+)?/.exec(rest) ??
      /^[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/.exec(rest) ??
      /^::|^=>|^[\s\S]/.exec(rest);
    const piece = match![0];
    const first = piece[0]!;
    const kind: Token['kind'] = /\s/.test(first)
      ? 'space'
      : first === '"'
        ? 'quoted'
        : first === "'" || (piece.length > 1 && piece[1] === "'" && /[Ee]/.test(first))
          ? 'string'
          : /[A-Za-z_\u0080-\uffff]/.test(first)
            ? 'word'
            : 'other';
    tokens.push({ kind, text: piece });
    at += piece.length;
  }
  return tokens;
}

function unquote(quoted: string): string {
  return quoted.slice(1, -1).replaceAll('""', '"');
}

function inColumnPlace(tokens: readonly Token[], index: number): boolean {
  const before = neighbour(tokens, index, -1);
  const after = neighbour(tokens, index, 1);
  if (before && ['.', '::'].includes(before.text)) return false;
  if (before?.kind === 'word' && before.text.toLowerCase() === 'collate') return false;
  return !(after && ['(', '.', '=>'].includes(after.text));
}

function neighbour(tokens: readonly Token[], index: number, step: 1 | -1): Token | undefined {
  for (let at = index + step; at >= 0 && at < tokens.length; at += step) {
    if (tokens[at]!.kind !== 'space') return tokens[at];
  }
  return undefined;
}
