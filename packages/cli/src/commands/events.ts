import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { type EventLogOptions, printEventLog, withEventLogOptions } from './shared/event-log.ts';

export function registerEvents(program: Command, runtime: Runtime): void {
  withEventLogOptions(
    program
      .command('events')
      .description(
        'the daemon event log: its history, or with -f new events as they happen (NDJSON with --json)',
      ),
  )
    .option('-f, --follow', 'keep printing new events until Ctrl-C (from now, unless told)')
    .addHelpText(
      'after',
      `
Examples:
  svc events --tail 20                 the last 20 events
  svc events -f                        new events from now on, until Ctrl-C
  svc events -f --since 10m            the last ten minutes, then new ones
  svc events --after 120 -f --json     resume after seq 120, one JSON event per line
  svc events --kinds node.state --limit 5`,
    )
    .action(
      action(
        runtime,
        (ctx: Context, opts: Omit<EventLogOptions, 'follow'> & { follow?: boolean }) =>
          printEventLog(ctx, { ...opts, follow: opts.follow === true }),
      ),
    );
}
