import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT } from '../errors.ts';
import { cell } from '../output/format.ts';
import { renderFields } from '../output/table.ts';

export function registerGrant(program: Command, runtime: Runtime): void {
  program
    .command('grant')
    .description('what the calling token may do: its kind, app and scope list')
    .action(action(runtime, grant));
}

async function grant(ctx: Context) {
  const client = await ctx.client();
  const answer = await client.grant.get();
  ctx.out.result(answer, (colors) =>
    renderFields(
      [
        ['kind', answer.kind],
        ['app', cell(answer.app_id)],
        ['scopes', answer.scopes === null ? 'everything (owner)' : cell(answer.scopes)],
        ['token_id', answer.token_id],
        ['expires', answer.expires_at ?? 'never'],
      ],
      colors,
    ),
  );
  return EXIT.ok;
}
