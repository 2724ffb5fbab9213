import { UsageError } from '../errors.ts';

/**
 * A secret read from stdin (piped, never typed on a terminal where it would be echoed) or from
 * the variable `--key-env` names. Secrets never come from a flag value: flags land in shell
 * history and in `ps` output. One trailing newline is dropped; `null` when nothing was given.
 */
export async function readSecret(
  opts: {
    envName?: string | undefined;
    env: NodeJS.ProcessEnv;
    flag: string;
    /** The daemon's limit, in characters, checked here so a long value is a usage error. */
    maxLength: number;
  },
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<string | null> {
  if (opts.envName !== undefined) {
    const value = opts.env[opts.envName];
    if (value === undefined || value === '') {
      throw new UsageError(`${opts.flag}: the variable ${opts.envName} is not set or empty`);
    }
    return checked(value, opts.envName, opts.maxLength);
  }
  if (stdin.isTTY) return null;
  // A stray file piped in stops here: no value within the limit takes more bytes (UTF-8 needs
  // at most 3 per UTF-16 unit), with its trailing newline.
  const maxBytes = opts.maxLength * 3 + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLong('stdin', opts.maxLength);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  return text === '' ? null : checked(text, 'stdin', opts.maxLength);
}

function checked(value: string, from: string, maxLength: number): string {
  if (value.length > maxLength) throw tooLong(from, maxLength);
  return value;
}

function tooLong(from: string, maxLength: number): UsageError {
  return new UsageError(`${from}: longer than ${maxLength} characters, the daemon's limit`);
}
