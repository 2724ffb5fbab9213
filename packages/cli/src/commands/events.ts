import type { SvcEvent } from '@svc/client';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT } from '../errors.ts';
import { parseAfter, parseKinds } from './shared/list-options.ts';

export function registerEvents(program: Command, runtime: Runtime): void {
  program
    .command('events')
    .description('print the daemon event log (one JSON object per line with --json)')
    .option('--after <seq>', 'start after this sequence number', '0')
    .option('--kinds <list>', 'only these kinds, comma-separated, e.g. token.created,token.revoked')
    .option('-f, --follow', 'keep printing new events until Ctrl-C')
    .action(action(runtime, events));
}

async function events(ctx: Context, opts: { after: string; kinds?: string; follow?: boolean }) {
  const after = parseAfter(opts.after, 'a sequence number (0 or more)');
  const kinds = parseKinds(opts.kinds);
  const client = await ctx.client();
  // Without --follow the daemon ends the stream after the backlog.
  const stream = client.events.stream({
    after,
    follow: opts.follow === true,
    ...(kinds === undefined ? {} : { kinds: kinds.split(',') }),
  });
  for await (const event of stream as AsyncIterable<SvcEvent>) {
    ctx.out.record(event, (colors) =>
      [
        String(event.seq).padStart(6),
        colors.dim(event.created_at),
        event.kind.padEnd(16),
        (event.subject_id ?? '-').padEnd(8),
        JSON.stringify(event.payload),
      ].join('  '),
    );
  }
  return EXIT.ok;
}
