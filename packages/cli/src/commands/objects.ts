/**
 * `svc objects`: custom objects, their events and deliveries (docs/cli.md "svc objects"). Every
 * argument is checked before anything is sent (exit 2).
 */
import { resolve } from 'node:path';
import type { CustomObject, CustomObjectRegisterParams, ObjectDelivery } from '@svc/client';
import { customObjectRegisterBodySchema, OBJECT_EVENT_NAME } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import {
  renderDelivery,
  renderObject,
  renderObjectTable,
  renderRegistered,
} from '../output/object-view.ts';
import { readBody } from '../parse/body.ts';
import { parseId } from '../parse/id.ts';
import { positive } from '../parse/number.ts';
import { parseAfter, parseLimit } from './shared/list-options.ts';

interface RegisterOptions {
  data?: string;
  name?: string;
  description?: string;
  event: string[];
  url?: string;
  cwd?: string;
}

interface ReceiveOptions {
  after?: string;
  ack?: boolean;
  count?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerObjects(program: Command, runtime: Runtime): void {
  const objects = program
    .command('objects')
    .description('custom objects: declared events delivered to a queue, a URL or a program');

  objects
    .command('register')
    .description(
      'register an object (a queue unless --url or a program after --); prints its publish token once',
    )
    .argument(
      '[program...]',
      'after --: a program and its arguments that get each delivery on stdin',
    )
    .option(
      '-d, --data <json|@file|->',
      'the whole body (name, events, receiver) as JSON; flags add to it',
    )
    .option('--name <text>', 'the name')
    .option('--description <text>', 'what it is')
    .option('--event <name>', 'a declared event (repeatable); schemas go in --data', collect, [])
    .option('--url <url>', 'deliver to this http(s) URL (signed POSTs)')
    .option('--cwd <dir>', "the program's working directory")
    .action(action(runtime, register));
  objects
    .command('publish')
    .description('publish one declared event (SVC_TOKEN may be the publish token alone)')
    .argument('<id>', 'object id')
    .argument('<event>', 'event name')
    .option('-d, --data <json|@file|->', "the event's data: JSON, @file with JSON, or - for stdin")
    .action(action(runtime, publish));
  objects
    .command('ls')
    .description('the objects you may see, newest first')
    .option('--limit <n>', 'at most this many', '50')
    .action(action(runtime, list));
  objects
    .command('get')
    .description('one object')
    .argument('<id>', 'object id')
    .action(action(runtime, get));
  objects
    .command('rm')
    .description('unregister an object: its pending deliveries stop')
    .argument('<id>', 'object id')
    .action(action(runtime, remove));
  objects
    .command('ack')
    .description("acknowledge a queue's deliveries")
    .argument('<id>', 'object id')
    .argument('<delivery...>', 'delivery ids (dlv_…)')
    .action(action(runtime, ack));
  objects
    .command('receive')
    .description(
      "print a queue's deliveries as they come: every unacknowledged one first (until Ctrl-C)",
    )
    .argument('<id>', 'object id')
    .option('--ack', 'acknowledge each delivery once it is printed')
    .option('--after <seq>', 'also print acknowledged deliveries after this seq')
    .option('--count <n>', 'stop after this many deliveries')
    .action(action(runtime, receive));
}

const objectId = (value: string) => parseId('object', value, 'object id');

function printObject(ctx: Context, o: CustomObject): number {
  ctx.out.result(o, (colors) => renderObject(o, colors));
  return EXIT.ok;
}

/** The register body from `--data` and the flags, checked with the daemon's own schema. */
async function registerBody(
  program: string[],
  opts: RegisterOptions,
): Promise<CustomObjectRegisterParams> {
  const given = opts.data === undefined ? {} : await readBody(opts.data);
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new UsageError('--data must be a JSON object (name, events, receiver)');
  }
  const body = { ...(given as Record<string, unknown>) };
  if (opts.name !== undefined) body.name = opts.name;
  if (opts.description !== undefined) body.description = opts.description;
  for (const name of opts.event) {
    if (!OBJECT_EVENT_NAME.test(name)) {
      throw new UsageError(
        `--event must be a lowercase letter, then up to 62 of a-z, 0-9, _ . -; received '${name}'`,
      );
    }
  }
  if (opts.event.length > 0) {
    const declared = (body.events ?? {}) as Record<string, unknown>;
    body.events = { ...declared, ...Object.fromEntries(opts.event.map((e) => [e, {}])) };
  }
  if (opts.url !== undefined && program.length > 0) {
    throw new UsageError('give either --url or a program after --, not both');
  }
  if (opts.cwd !== undefined && program.length === 0) {
    throw new UsageError('--cwd is the working directory of a program given after --');
  }
  if (opts.url !== undefined) body.receiver = { kind: 'url', url: opts.url };
  else if (program.length > 0) {
    body.receiver = {
      kind: 'argv',
      argv: program,
      ...(opts.cwd !== undefined && { cwd: resolve(opts.cwd) }),
    };
  } else body.receiver ??= { kind: 'queue' };
  const issue = customObjectRegisterBodySchema.safeParse(body).error?.issues[0];
  if (issue !== undefined) {
    const where = issue.path.map(String).join('.') || 'body';
    throw new UsageError(`${where}: ${issue.message}`);
  }
  return body as CustomObjectRegisterParams;
}

async function register(ctx: Context, program: string[], opts: RegisterOptions) {
  const body = await registerBody(program, opts);
  const client = await ctx.client();
  const answer = await client.customObjects.register(body);
  ctx.out.result(answer, (colors) => renderRegistered(answer, colors));
  return EXIT.ok;
}

async function publish(ctx: Context, id: string, event: string, opts: { data?: string }) {
  const checked = objectId(id);
  const data = opts.data === undefined ? undefined : await readBody(opts.data);
  const client = await ctx.client();
  const answer = await client.customObjects.publish(checked, {
    event,
    ...(data !== undefined && { data }),
  });
  ctx.out.result(
    answer,
    () => `published ${event}: delivery ${answer.delivery_id} (seq ${answer.seq})`,
  );
  return EXIT.ok;
}

async function list(ctx: Context, opts: { limit: string }) {
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  // No typed method (SPEC: register, publish, unregister, ack, receive): the raw request.
  const page = await client.request<{ data: CustomObject[] }>(
    'GET',
    `/v1/custom-objects?limit=${limit}`,
  );
  ctx.out.result(page, (colors) => renderObjectTable(page.data, colors));
  return EXIT.ok;
}

async function get(ctx: Context, id: string) {
  const checked = objectId(id);
  const client = await ctx.client();
  return printObject(
    ctx,
    await client.request<CustomObject>('GET', `/v1/custom-objects/${checked}`),
  );
}

async function remove(ctx: Context, id: string) {
  const checked = objectId(id);
  const client = await ctx.client();
  const answer = await client.customObjects.unregister(checked);
  ctx.out.result(answer, () => `unregistered ${answer.id}`);
  return EXIT.ok;
}

async function ack(ctx: Context, id: string, deliveries: string[]) {
  const checked = objectId(id);
  const ids = deliveries.map((d) => parseId('delivery', d, 'delivery id'));
  const client = await ctx.client();
  const answer = await client.customObjects.ack(checked, ids);
  ctx.out.result(answer, () =>
    answer.not_found.length === 0
      ? `acknowledged ${answer.acked}`
      : `acknowledged ${answer.acked}; not deliveries of ${checked}: ${answer.not_found.join(', ')}`,
  );
  return answer.not_found.length === 0 ? EXIT.ok : EXIT.error;
}

async function receive(ctx: Context, id: string, opts: ReceiveOptions) {
  const checked = objectId(id);
  const after = opts.after === undefined ? undefined : parseAfter(opts.after);
  const count = opts.count === undefined ? undefined : positive(opts.count, '--count', true);
  const client = await ctx.client();
  const stream = client.customObjects.receive(checked, after === undefined ? {} : { after });
  // A queue may be empty for a long time: say that the silence is a wait, not a hang.
  if (!ctx.out.json) {
    const until = count === undefined ? 'Ctrl-C to stop' : `until ${count} arrive, or Ctrl-C`;
    ctx.out.note(`waiting for deliveries to ${checked} (${until})`);
  }
  let seen = 0;
  for await (const delivery of stream as AsyncIterable<ObjectDelivery>) {
    ctx.out.record(delivery, (colors) => renderDelivery(delivery, colors));
    if (opts.ack) await client.customObjects.ack(checked, [delivery.payload.delivery_id]);
    seen++;
    if (count !== undefined && seen >= count) break;
  }
  return EXIT.ok;
}
