// Names come from the database and may hold any character. Where they land in a comment (SQL
// `--`, JavaScript `//`) a line break would end the comment and turn the rest of the name into
// code, and in a terminal other control characters are escape sequences: both are spelled out.
const unsafe = (code: number) => code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;

/**
 * `text` on one line: every control character, and the Unicode line and paragraph separators,
 * written as `\uXXXX`.
 *
 * @example
 * oneLine('t\ndrop table x; --'); // 't\\u000adrop table x; --'
 */
export function oneLine(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    out += unsafe(code) ? `\\u${code.toString(16).padStart(4, '0')}` : char;
  }
  return out;
}
