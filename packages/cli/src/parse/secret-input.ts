import { UsageError } from '../errors.ts';

/** More than any key or env value the daemon accepts; a stray file piped in stops here. */
const MAX_BYTES = 64 * 1024;

/**
 * A secret read from stdin (piped, never typed on a terminal where it would be echoed) or from
 * the variable `--key-env` names. Secrets never come from a flag value: flags land in shell
 * history and in `ps` output. One trailing newline is dropped; `null` when nothing was given.
 */
export async function readSecret(
  opts: { envName?: string | undefined; env: NodeJS.ProcessEnv; flag: string },
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<string | null> {
  if (opts.envName !== undefined) {
    const value = opts.env[opts.envName];
    if (value === undefined || value === '') {
      throw new UsageError(`${opts.flag}: the variable ${opts.envName} is not set or empty`);
    }
    return value;
  }
  if (stdin.isTTY) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_BYTES) throw new UsageError(`stdin: more than ${MAX_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  return text === '' ? null : text;
}
