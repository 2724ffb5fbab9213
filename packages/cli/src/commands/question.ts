/**
 * `svc question show|answer` (docs/cli.md "svc question"): what a node of one of your runs asked
 * the person, and the answer to it. Every argument is checked before anything is sent (exit 2).
 */
import type { Question } from '@svc/client';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT } from '../errors.ts';
import { renderQuestion } from '../output/app-api-view.ts';
import { responseLine } from '../output/human-view.ts';
import { type AnswerOptions, parseAnswer } from '../parse/answer.ts';
import { parseId } from '../parse/id.ts';

export function registerQuestion(program: Command, runtime: Runtime): void {
  const question = program
    .command('question')
    .description("questions the nodes of your runs asked (their ids come in the runs' events)");
  question
    .command('show')
    .alias('get')
    .description('one question: its content, state and answer')
    .argument('<id>', 'question id (q_…)')
    .action(action(runtime, show));
  question
    .command('answer')
    .description('answer a question; the node that asked wakes with the answer')
    .argument('<id>', 'question id (q_…)')
    .option('--choice <choice>', 'one of its options')
    .option('--text <text>', 'a written answer')
    .option('--data <json|@file|->', 'structured data: JSON, @file with JSON, or - for stdin')
    .action(action(runtime, answer));
}

function questionId(value: string): string {
  return parseId('question', value, 'question id');
}

function printQuestion(ctx: Context, q: Question): number {
  ctx.out.result(q, (colors) => renderQuestion(q, colors));
  return EXIT.ok;
}

async function show(ctx: Context, id: string) {
  const checked = questionId(id);
  const client = await ctx.client();
  return printQuestion(ctx, await client.questions.get(checked));
}

async function answer(ctx: Context, id: string, opts: AnswerOptions) {
  const checked = questionId(id);
  const body = await parseAnswer(opts);
  const client = await ctx.client();
  const answered = await client.questions.answer(checked, body);
  ctx.out.result(answered, () => `answered ${answered.id}: ${responseLine(answered.answer!)}`);
  return EXIT.ok;
}
