/** What a password is replaced by. */
const mask = '***';

/** Query parameters that carry a secret: pg reads `?password=` and `?sslpassword=`, mysql2 `?password=`. */
const secretName = '(?:ssl)?pass(?:word|wd)?|pwd';
const secretParam = new RegExp(`^(?:${secretName})$`, 'i');
const secretParamInText = new RegExp(`([?&](?:${secretName})=)[^&#]*`, 'gi');

/** `scheme://user:` then everything up to the last `@`: drivers split the user info at the last `@`. */
const userInfo = /^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[\s\S]*@/i;

/** A URL inside a message, up to the next whitespace. */
const urlInText = /[a-z][a-z0-9+.-]*:\/\/\S+/gi;

/**
 * `url` with its password and secret query parameters replaced by `***`, for every message and report
 * line that names a database. A URL that does not parse (an unencoded `#` or `/` in the password, say)
 * is masked from the first `:` of its user info to its last `@`: a driver may still have read it.
 *
 * @example
 * redactUrl('postgres://app:s3cret@db:5432/app'); // 'postgres://app:***@db:5432/app'
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(userInfo, `$1${mask}@`).replace(secretParamInText, `$1${mask}`);
  }
  let changed = false;
  if (parsed.password) {
    parsed.password = mask;
    changed = true;
  }
  for (const key of new Set(parsed.searchParams.keys())) {
    if (!secretParam.test(key)) continue;
    parsed.searchParams.set(key, mask);
    changed = true;
  }
  // Unchanged URLs are returned as given: serializing would still re-encode them.
  return changed ? parsed.toString() : url;
}

/**
 * `text` with every URL in it passed through {@link redactUrl}: for error messages, which may quote
 * a URL (node's "Unexpected argument '…'", a driver's message).
 *
 * @example
 * redactText("Unexpected argument 'mysql://root:pw@db/app'"); // "Unexpected argument 'mysql://root:***@db/app'"
 */
export function redactText(text: string): string {
  return text.replace(urlInText, (url) => redactUrl(url));
}
