import type { HumanRespondParams } from '@svc/client';
import { UsageError } from '../errors.ts';
import { readBody } from './body.ts';

/** `--choice`, `--text` and `--data` of an answer (the inbox's, a question's). */
export interface AnswerOptions {
  choice?: string;
  text?: string;
  data?: string;
}

/**
 * The answer body of `svc human respond` and `svc question answer` (one shape: a question is
 * answered through its human request); at least one part, none empty.
 */
export async function parseAnswer(opts: AnswerOptions): Promise<HumanRespondParams> {
  const body: HumanRespondParams = {};
  if (opts.choice !== undefined) {
    if (opts.choice === '') throw new UsageError('--choice must not be empty');
    body.choice = opts.choice;
  }
  if (opts.text !== undefined) {
    if (opts.text === '') throw new UsageError('--text must not be empty');
    body.text = opts.text;
  }
  if (opts.data !== undefined) body.data = await readBody(opts.data);
  if (Object.keys(body).length === 0) {
    throw new UsageError('an answer needs --choice, --text or --data');
  }
  return body;
}
