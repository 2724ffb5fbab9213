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
  return secretRedactor(secrets)(text);
}

/**
 * `redactSecrets` for many texts: each secret's forms and the runs to look for are worked out
 * once (a plugin's answer parsed into thousands of strings paid that per string).
 */
export function secretRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const matchers = secrets
    .filter((secret): secret is string => secret !== undefined && secret !== '')
    .map((secret) => {
      const forms = secret.length >= RUN ? formsOf(secret) : [];
      return { secret, forms, windows: windowsOf(forms) };
    });
  return (text) => {
    let out = text;
    for (const { secret, forms, windows } of matchers) {
      out = out.replaceAll(secret, '[redacted]');
      if (forms.length > 0) out = blankRuns(out, forms, windows);
    }
    return out;
  };
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

/** Every run of `RUN` characters of the forms. */
function windowsOf(forms: readonly string[]): Set<string> {
  const windows = new Set<string>();
  for (const form of forms) {
    for (let i = 0; i + RUN <= form.length; i++) windows.add(form.slice(i, i + RUN));
  }
  return windows;
}

/** `text` with each stretch of at least `RUN` characters found in one of `forms` blanked. */
function blankRuns(text: string, forms: readonly string[], windows: Set<string>): string {
  let out = '';
  let kept = 0;
  let i = 0;
  while (i + RUN <= text.length) {
    if (!windows.has(text.slice(i, i + RUN))) {
      i++;
      continue;
    }
    // Extend the stretch while it still occurs in one of the forms.
    let end = i + RUN;
    while (end < text.length && forms.some((form) => form.includes(text.slice(i, end + 1)))) end++;
    out += `${text.slice(kept, i)}[redacted]`;
    i = end;
    kept = end;
  }
  return out + text.slice(kept);
}

/**
 * Parsed JSON with `redactSecrets` applied to each of its strings, keys included: JSON's escapes
 * (`\u0061`) spell a secret that a redaction of the raw text cannot see, and parsing undoes them.
 */
export function redactValue(value: unknown, secrets: readonly (string | undefined)[]): unknown {
  const redact = secretRedactor(secrets);
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') return redact(item);
    if (Array.isArray(item)) return item.map(walk);
    if (item === null || typeof item !== 'object') return item;
    return Object.fromEntries(Object.entries(item).map(([k, v]) => [redact(k), walk(v)]));
  };
  return walk(value);
}
