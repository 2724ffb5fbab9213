import { REQUEST_BODY_MAX_BYTES } from '@svc/protocol';
import { UsageError } from '../errors.ts';
import { type ContentLimit, readLocal, readStdinBounded } from './local-content.ts';

/** The daemon's request body limit (docs/api-v1.md): a body past it could only be refused. */
const BODY_LIMIT: ContentLimit = {
  bytes: REQUEST_BODY_MAX_BYTES,
  rule: `a request body is at most ${REQUEST_BODY_MAX_BYTES} bytes`,
};

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
    text = (await readLocal(source, BODY_LIMIT, `${flag} ${spec}`)).toString('utf8');
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
  return (await readStdinBounded(BODY_LIMIT)).toString('utf8');
}
