import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT } from '../errors.ts';
import { renderTable } from '../output/table.ts';
import { renderStatus } from '../output/views.ts';

export function registerStatus(program: Command, runtime: Runtime): void {
  program
    .command('status')
    .description('the daemon status and which model providers are ready')
    .action(action(runtime, status));
}

async function status(ctx: Context) {
  const client = await ctx.client();
  const answer = await client.auth.status();
  ctx.out.result(answer, (colors) => {
    const providers = answer.readiness?.providers ?? [];
    const models =
      providers.length === 0
        ? colors.dim('no model provider is configured yet')
        : renderTable(
            providers,
            [
              { header: 'PROVIDER', value: (p) => p.provider },
              {
                header: 'READY',
                value: (p) => (p.ready ? 'yes' : 'no'),
                style: (padded, raw, c) => (raw === 'yes' ? c.green(padded) : c.yellow(padded)),
              },
              { header: 'REASON', value: (p) => p.reason ?? '' },
            ],
            colors,
          );
    return `${renderStatus(answer.status, colors)}\n\n${models}`;
  });
  return EXIT.ok;
}
