/**
 * `svc provider tools|call` (`client.providers`; docs/api-v1.md, "Providers"): the installed
 * plugins' commands, listed and called through the daemon as the token's scopes allow.
 */
import type { ProviderCallParams, ProviderCallResult } from '@svc/client';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { renderTable } from '../output/table.ts';
import { readBody } from '../parse/body.ts';
import { parseName } from '../parse/name.ts';

export function registerProvider(program: Command, runtime: Runtime): void {
  const provider = program
    .command('provider')
    .description("installed plugins' commands, called through the daemon");
  provider
    .command('tools')
    .description('the commands your scopes cover')
    .option('--provider <name>', 'only this provider')
    .action(action(runtime, tools));
  provider
    .command('call')
    .description("call one command and print its output (a streaming command's items)")
    .argument('<provider>', 'provider (plugin) name')
    .argument('<group>', 'tool group')
    .argument('<command>', 'command name')
    .option(
      '--input <json|@file|->',
      'the input object: JSON, @file with JSON, or - for stdin',
      '{}',
    )
    .option(
      '--profile <name>',
      "whose env store holds a shared-token plugin's token (daemon default: default)",
    )
    .action(action(runtime, call));
}

async function tools(ctx: Context, opts: { provider?: string }) {
  const params =
    opts.provider === undefined ? {} : { provider: parseName(opts.provider, '--provider') };
  const client = await ctx.client();
  const list = await client.providers.tools(params);
  ctx.out.result(list, (colors) =>
    renderTable(
      list.data,
      [
        { header: 'PROVIDER', value: (t) => t.provider },
        { header: 'GROUP', value: (t) => t.group },
        { header: 'COMMAND', value: (t) => t.command },
        { header: 'STREAMING', value: (t) => (t.streaming ? 'yes' : 'no') },
        { header: 'DESCRIPTION', value: (t) => t.description },
      ],
      colors,
      'tools',
    ),
  );
  return EXIT.ok;
}

async function call(
  ctx: Context,
  provider: string,
  group: string,
  command: string,
  opts: { input: string; profile?: string },
) {
  const params: ProviderCallParams = {
    provider: parseName(provider, 'provider'),
    group: parseName(group, 'group'),
    command: parseName(command, 'command'),
    input: inputObject(await readBody(opts.input, undefined, '--input')),
  };
  if (opts.profile !== undefined) params.profile = parseName(opts.profile, '--profile');
  const client = await ctx.client();
  const result = await client.providers.call(params);
  ctx.out.result(result, () => JSON.stringify(outputOf(result), null, 2));
  if (result.truncated === true && !ctx.out.json) {
    ctx.out.note('svc: the stream stopped short of its end (size or time limit)');
  }
  return EXIT.ok;
}

/** A command takes a JSON object, nothing else. */
function inputObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(
      `--input must be a JSON object; received ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}`,
    );
  }
  return value as Record<string, unknown>;
}

/** What a person reads of an answer: the command's output, or a stream's items. */
function outputOf(result: ProviderCallResult): unknown {
  return result.items ?? result.output;
}
