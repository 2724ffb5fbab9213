/**
 * `svc human`: ask the person, and answer as the person (docs/cli.md "svc human"). An id may be
 * a request's (`hr_…`) or its inbox ticket's (`tk_…`) where both make sense. Every argument is
 * checked before anything is sent (exit 2).
 */
import type { HumanRequest, HumanRequestCreateParams, Ticket } from '@svc/client';
import { HUMAN_KINDS, humanRequestCreateBodySchema, isId, OPEN_TICKET_STATES } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import {
  renderHumanRequest,
  renderTicket,
  renderTicketTable,
  responseLine,
} from '../output/human-view.ts';
import { type AnswerOptions, parseAnswer } from '../parse/answer.ts';
import { parseChoice } from '../parse/choice.ts';
import { parseId } from '../parse/id.ts';
import { collect } from '../parse/node-create.ts';
import { parseLimit } from './shared/list-options.ts';

interface AskOptions {
  kind?: string;
  option: string[];
  body?: string;
}

export function registerHuman(program: Command, runtime: Runtime): void {
  const human = program
    .command('human')
    .description('human requests: ask the person (needs svc:act), and answer from the inbox');
  human
    .command('ask')
    .description('ask the person something; prints the request')
    .argument('<title...>', 'what you need, in one line')
    .option('--kind <kind>', `${HUMAN_KINDS.join(', ')} (default question)`)
    .option('--option <choice>', 'a choice to offer (repeat for more)', collect, [])
    .option('--body <text>', 'the details, in markdown')
    .addHelpText(
      'after',
      `
Examples:
  svc human ask "Ship it?" --kind approval
  svc human ask "Which colour?" --option red --option blue --body "for the *logo*"`,
    )
    .action(action(runtime, ask));
  human
    .command('show')
    .description('one request (hr_…) or inbox ticket (tk_…)')
    .argument('<id>', 'request or ticket id')
    .action(action(runtime, show));
  human
    .command('inbox')
    .description('tickets waiting for you, newest first')
    .option('--state <state>', `only ${OPEN_TICKET_STATES.join(' or ')} tickets`)
    .option('--limit <n>', 'at most this many', '50')
    .action(action(runtime, inbox));
  human
    .command('history')
    .description('closed tickets, newest first')
    .option('--limit <n>', 'at most this many', '50')
    .action(action(runtime, history));
  human
    .command('respond')
    .description('answer a request or ticket')
    .argument('<id>', 'request or ticket id')
    .option('--choice <choice>', 'one of its options')
    .option('--text <text>', 'a written answer')
    .option('--data <json|@file|->', 'structured data: JSON, @file with JSON, or - for stdin')
    .addHelpText(
      'after',
      `
Examples:
  svc human respond tk_01J9Z6Q3M4V8X2K7B5N0C1D2E3 --choice approve --text "go ahead"
  svc human respond hr_01J9Z6Q3M4V8X2K7B5N0C1D2E3 --data '{"when": "now"}'`,
    )
    .action(action(runtime, respond));
  human
    .command('progress')
    .description('mark a ticket in progress')
    .argument('<ticket>', 'ticket id')
    .option('--note <text>', 'a note for the asker')
    .action(action(runtime, progress));
  human
    .command('dismiss')
    .description('close a request or ticket without an answer')
    .argument('<id>', 'request or ticket id')
    .option('--reason <text>', 'why')
    .action(action(runtime, dismiss));
  human
    .command('cancel')
    .description('withdraw a request you asked')
    .argument('<request>', 'request id')
    .option('--reason <text>', 'why')
    .action(action(runtime, cancel));
}

/** `hr_…` or `tk_…`, as which; else a usage error before any request. */
function eitherId(value: string): { kind: 'request' | 'ticket'; id: string } {
  if (isId('human_request', value)) return { kind: 'request', id: value };
  if (isId('ticket', value)) return { kind: 'ticket', id: value };
  throw new UsageError(
    `id must be a request id (hr_…) or a ticket id (tk_…), each followed by 26 characters; received '${value}'`,
  );
}

function reason(text: string | undefined): { reason?: string } {
  if (text === '') throw new UsageError('--reason must not be empty');
  return text === undefined ? {} : { reason: text };
}

function printRequest(ctx: Context, r: HumanRequest): number {
  ctx.out.result(r, (colors) => renderHumanRequest(r, colors));
  return EXIT.ok;
}

function printTicket(ctx: Context, t: Ticket): number {
  ctx.out.result(t, (colors) => renderTicket(t, colors));
  return EXIT.ok;
}

async function ask(ctx: Context, title: string[], opts: AskOptions) {
  const body: HumanRequestCreateParams = { title: title.join(' ') };
  const kind = parseChoice(opts.kind, HUMAN_KINDS, '--kind');
  if (kind !== undefined) body.kind = kind;
  if (opts.option.length > 0) body.options = opts.option;
  if (opts.body !== undefined) body.body = opts.body;
  const issue = humanRequestCreateBodySchema.safeParse(body).error?.issues[0];
  if (issue !== undefined) {
    const field = String(issue.path[0] ?? 'title');
    throw new UsageError(
      `${field === 'options' ? '--option' : field === 'title' ? 'title' : `--${field}`}: ${issue.message}`,
    );
  }
  const client = await ctx.client();
  return printRequest(ctx, await client.human.requests.create(body));
}

async function show(ctx: Context, value: string) {
  const which = eitherId(value);
  const client = await ctx.client();
  if (which.kind === 'request')
    return printRequest(ctx, await client.human.requests.retrieve(which.id));
  return printTicket(ctx, await client.human.inbox.retrieve(which.id));
}

async function inbox(ctx: Context, opts: { state?: string; limit: string }) {
  const state = parseChoice(opts.state, OPEN_TICKET_STATES, '--state');
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.human.inbox.list({
    ...(state !== undefined && { state }),
    limit,
  });
  ctx.out.result(page, (colors) => renderTicketTable(page.data, colors));
  return EXIT.ok;
}

async function history(ctx: Context, opts: { limit: string }) {
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.human.inbox.history({ limit });
  ctx.out.result(page, (colors) => renderTicketTable(page.data, colors));
  return EXIT.ok;
}

async function respond(ctx: Context, value: string, opts: AnswerOptions) {
  const which = eitherId(value);
  const body = await parseAnswer(opts);
  const client = await ctx.client();
  if (which.kind === 'request') {
    const answered = await client.human.requests.respond(which.id, body);
    ctx.out.result(answered, () => `answered ${answered.id}: ${responseLine(answered.response!)}`);
  } else {
    const answered = await client.human.inbox.respond(which.id, body);
    // The ticket carries no response: echo what was sent, as the request form does.
    ctx.out.result(
      answered,
      () => `answered ${answered.id} (request ${answered.requestId}): ${responseLine(body)}`,
    );
  }
  return EXIT.ok;
}

async function progress(ctx: Context, value: string, opts: { note?: string }) {
  const id = parseId('ticket', value);
  if (opts.note === '') throw new UsageError('--note must not be empty');
  const client = await ctx.client();
  const ticket = await client.human.inbox.progress(
    id,
    opts.note === undefined ? {} : { note: opts.note },
  );
  return printTicket(ctx, ticket);
}

async function dismiss(ctx: Context, value: string, opts: { reason?: string }) {
  const which = eitherId(value);
  const body = reason(opts.reason);
  const client = await ctx.client();
  if (which.kind === 'request') {
    return printRequest(ctx, await client.human.requests.dismiss(which.id, body));
  }
  return printTicket(ctx, await client.human.inbox.cancel(which.id, body));
}

async function cancel(ctx: Context, value: string, opts: { reason?: string }) {
  const id = parseId('human_request', value, 'request id');
  const body = reason(opts.reason);
  const client = await ctx.client();
  return printRequest(ctx, await client.human.requests.cancel(id, body));
}
