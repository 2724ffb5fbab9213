/**
 * `text` with every secret of `secrets` blanked: a provider's error may echo the key it was sent
 * (a proxy quoting the Authorization header, a gateway printing it shortened, URL-encoded or
 * inside Basic credentials), and such a message is answered, recorded and logged.
 *
 * Blanked: the secret itself, and any run of `RUN` or more characters that also occurs in it, in
 * its URL encoding, or in its base64 (standard or URL-safe, at each of the three alignments it
 * can have inside a longer encoded string such as `user:key`). So a message keeps what it says
 * but no stretch of a key long enough to help guess it; `sk-…abcd`, the last 4 characters a
 * provider shows on purpose, stays.
 */
import { Buffer } from 'node:buffer';

/** The shortest stretch of a secret that is blanked: short enough for a key's prefix and tail. */
const RUN = 8;

export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret === undefined || secret === '') continue;
    out = out.replaceAll(secret, '[redacted]');
    if (secret.length >= RUN) out = blankRuns(out, formsOf(secret));
  }
  return out;
}

/** The texts a secret shows up as, in which a shared run of `RUN` characters gives it away. */
function formsOf(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const forms = [secret, encodeURIComponent(secret)];
  for (const pad of [0, 1, 2]) {
    // Preceded by `pad` bytes, the secret's bytes fall differently into base64's 3-byte groups;
    // the first and last groups mix with the bytes around it, so only the inner ones are its own.
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]).toString('base64');
    const inner = encoded.slice(pad === 0 ? 0 : 4, -4);
    forms.push(inner, inner.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms.filter((form) => form.length >= RUN);
}

/** `text` with each stretch of at least `RUN` characters found in one of `forms` blanked. */
function blankRuns(text: string, forms: readonly string[]): string {
  const windows = new Set<string>();
  for (const form of forms) {
    for (let i = 0; i + RUN <= form.length; i++) windows.add(form.slice(i, i + RUN));
  }
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (i + RUN > text.length || !windows.has(text.slice(i, i + RUN))) {
      out += text[i];
      i++;
      continue;
    }
    // Extend the stretch while it still occurs in one of the forms.
    let end = i + RUN;
    while (end < text.length && forms.some((form) => form.includes(text.slice(i, end + 1)))) end++;
    out += '[redacted]';
    i = end;
  }
  return out;
}

/**
 * Parsed JSON with `redactSecrets` applied to each of its strings, keys included: JSON's escapes
 * (`\u0061`) spell a secret that a redaction of the raw text cannot see, and parsing undoes them.
 */
export function redactValue(value: unknown, secrets: readonly (string | undefined)[]): unknown {
  if (typeof value === 'string') return redactSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactValue(item, secrets));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [redactSecrets(k, secrets), redactValue(v, secrets)]),
  );
}
