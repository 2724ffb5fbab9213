import { findRoute } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { readBody } from '../parse/body.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

export function registerRequest(program: Command, runtime: Runtime): void {
  program
    .command('request')
    .description(
      'call any /v1 route with the owner token (the raw escape hatch) and print the JSON answer',
    )
    .argument('<method>', METHODS.join(', '))
    .argument('<path>', 'e.g. /v1/status or /v1/tokens?limit=5')
    .option('-d, --data <json|@file|->', 'request body: JSON, @file with JSON, or - for stdin')
    .action(action(runtime, request));
}

async function request(ctx: Context, method: string, path: string, opts: { data?: string }) {
  const verb = method.toUpperCase() as Method;
  if (!METHODS.includes(verb)) {
    throw new UsageError(`method must be one of ${METHODS.join(', ')}; received '${method}'`);
  }
  if (!path.startsWith('/')) {
    throw new UsageError(`path must start with /, e.g. /v1/status; received '${path}'`);
  }
  if (verb === 'GET' && opts.data !== undefined) {
    throw new UsageError('a GET request has no body; put parameters in the path query instead');
  }
  // A stream never ends, so the JSON answer `request` waits for would never come.
  const match = findRoute(verb, path.split('?')[0] ?? path);
  if (match !== null && 'route' in match && match.route.stream === 'sse') {
    throw new UsageError(`${verb} ${match.route.path} is an event stream; use svc events`);
  }
  const body = opts.data === undefined ? undefined : await readBody(opts.data);
  const client = await ctx.client();
  const answer = await client.request(verb, path, body);
  // The answer is JSON either way, so a person and a pipe read the same text.
  ctx.out.result(answer, () => JSON.stringify(answer, null, 2));
  return EXIT.ok;
}
