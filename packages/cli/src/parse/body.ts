import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.ts';

/**
 * A request body from `--data` (or the option `flag` names): inline JSON, `@file` (JSON in a
 * file) or `-` (JSON on stdin), the conventions of curl and gh. Parsed here so a typo fails
 * before anything is sent.
 */
export async function readBody(
  spec: string,
  stdin: () => Promise<string> = readStdin,
  flag = '--data',
): Promise<unknown> {
  let text: string;
  let source: string;
  if (spec === '-') {
    text = await stdin();
    source = 'stdin';
  } else if (spec.startsWith('@')) {
    source = spec.slice(1);
    try {
      text = await readFile(source, 'utf8');
    } catch (err) {
      throw new UsageError(
        `${flag} ${spec}: cannot read ${source} (${(err as NodeJS.ErrnoException).code ?? err})`,
      );
    }
  } else {
    text = spec;
    source = 'the argument';
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag}: ${source} is not valid JSON (${(err as Error).message})`);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
