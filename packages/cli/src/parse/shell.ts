/**
 * The one command string `/v1/bash` runs with `/bin/sh -c`. A single argument is taken as shell
 * text (`svc bash -- 'ls | wc -l'`); several are quoted one by one so `svc bash -- sh -c 'exit 3'`
 * runs exactly those three words.
 */
export function commandLine(words: readonly string[]): string {
  if (words.length === 1) return words[0] ?? '';
  return words.map(quote).join(' ');
}

/** POSIX single quotes: everything literal; an embedded `'` closes, escapes and reopens. */
function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
