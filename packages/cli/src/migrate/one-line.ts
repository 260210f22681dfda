// Names come from the database and may hold any character. Where they land in a comment (SQL
// `--`, JavaScript `//`) a line break would end the comment and turn the rest of the name into
// code, and in a terminal other control characters are escape sequences: both are spelled out.
const unsafe = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * `text` on one line: every control character, and the Unicode line and paragraph separators,
 * written as `\uXXXX`.
 *
 * @example
 * oneLine('t\ndrop table x; --'); // 't\\u000adrop table x; --'
 */
export function oneLine(text: string): string {
  return text.replace(unsafe, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
