/**
 * A quoted identifier, a string constant, a comment, a run of other text, or one character (a lone
 * `-` or `/`). Enough for what sheaf writes: identifiers from quoteIdent, constants from `literal()`,
 * and the server's own deparsed definitions (pg_get_viewdef, pg_get_triggerdef, pg_get_indexdef),
 * which spell names and constants the same two ways and hold no dollar quotes or E'' strings.
 */
const token = /"(?:[^"]|"")*"|'(?:[^']|'')*'|--[^\n]*|\/\*[\s\S]*?\*\/|[^"'\-/]+|[\s\S]/g;

/** A backslash right before a `?`: the one spelling knex cannot pass through. */
const backslashMark = /\\\?/;

/**
 * `sql` (PostgreSQL) as `knex.raw` must be given it to send `sql` unchanged. Knex's pg client turns
 * every `?` into a `$n` placeholder unless an odd run of backslashes precedes it, and then drops the
 * whole run with the escape, so no input yields a backslash right before a `?`. A `?` elsewhere is
 * written `\?`; a quoted name or constant that holds `\?` is re-spelled with no `?` at all, as
 * `U&"a\\\003F"` or `E'a\\\077'` (assuming standard_conforming_strings, PostgreSQL's default since
 * 9.1, under which `'a\?'` is a backslash and a question mark).
 *
 * @example
 * knexRawText(`select data ? 'k' from "a\\?b"`); // `select data \\? 'k' from U&"a\\\\\\003Fb"`
 */
export function knexRawText(sql: string): string {
  return sql.replace(token, (text, offset: number) => {
    if (!text.includes('?')) return text;
    const first = text[0];
    if (first === '"' || first === "'") {
      if (!backslashMark.test(text)) return text.replaceAll('?', '\\?');
      // U& and E must not glue onto a word before them (`select"x"` is valid SQL, `selectU&"x"` is not).
      const space = /[\w$]/.test(sql[offset - 1] ?? '') ? ' ' : '';
      const body = text.slice(1, -1).replaceAll('\\', '\\\\');
      return first === '"'
        ? `${space}U&"${body.replaceAll('?', '\\003F')}"`
        : `${space}E'${body.replaceAll('?', '\\077')}'`;
    }
    // Comments are not run: a space keeps a backslash before `?` from being dropped with the escape.
    if (text.startsWith('--') || text.startsWith('/*')) {
      return text.replace(/(\\*)\?/g, (_, run: string) => `${run}${run ? ' ' : ''}\\?`);
    }
    return text.replaceAll('?', '\\?');
  });
}
