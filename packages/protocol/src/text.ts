/**
 * Characters no name, path or title a person reads may hold: C0 and C1 controls and DEL, and the
 * bidirectional overrides and isolates, with which a text shows as another (Trojan Source,
 * CVE-2021-42574; `invoice‮fdp.exe` reads as `invoiceexe.pdf`). Such texts are shown in tables,
 * headers, logs and model prompts.
 */
export const UNSHOWABLE = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/**
 * The characters of ECMAScript's `\s` and Unicode's Cc, as the body of a character class every
 * common regex engine reads alike (ECMAScript, PCRE, RE2; a JSON Schema `pattern` is read by all
 * of them): ASCII as `\xNN` escapes, the rest as the characters themselves, since `\uNNNN` and
 * `\p{Cc}` are ECMAScript's own and `\s` is ASCII-only in RE2.
 */
export const SPACE_OR_CONTROL =
  '\\x00-\\x20\\x7f-\\x9f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

/** `UNSHOWABLE`'s bidirectional controls, as literal characters for a character class. */
export const BIDI_CONTROLS = '\u202a-\u202e\u2066-\u2069';

/** `UNSHOWABLE`'s characters as the body of a portable character class (`SPACE_OR_CONTROL`). */
export const UNSHOWABLE_CLASS = `\\x00-\\x1f\\x7f-\\x9f${BIDI_CONTROLS}`;
