/**
 * `svc share add|ls|rm` (docs/cli.md "svc share"): share a host path with an app, whose tokens
 * then reach it through the files routes. Every argument is checked before anything is sent
 * (exit 2).
 */
import { resolve } from 'node:path';
import { SHARE_EXPIRES_MAX_S, SHARE_MODES } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { renderShare, renderShareTable } from '../output/app-api-view.ts';
import { parseChoice } from '../parse/choice.ts';
import { parseDuration } from '../parse/duration.ts';
import { parseId } from '../parse/id.ts';
import { parseName } from '../parse/name.ts';
import { parseLimit } from './shared/list-options.ts';

interface AddOptions {
  mode?: string;
  expiresIn?: string;
}

export function registerShare(program: Command, runtime: Runtime): void {
  const share = program
    .command('share')
    .description('share host paths with apps: their tokens reach them through the files routes');
  share
    .command('add')
    .description('share PATH with APP (read: read and list; rw: write too)')
    .argument('<app>', 'the app id')
    .argument('<path>', 'the file or directory, made absolute')
    .option('--mode <mode>', `${SHARE_MODES.join(' or ')} (default read)`)
    .option('--expires-in <duration>', 'stop sharing after this long (default never)')
    .action(action(runtime, add));
  share
    .command('ls')
    .description('live shares, newest first')
    .option('--app <app>', 'only those made to this app')
    .option('--limit <n>', 'at most this many', '50')
    .action(action(runtime, list));
  share
    .command('rm')
    .description('end a share')
    .argument('<id>', 'share id (shr_…)')
    .action(action(runtime, remove));
}

async function add(ctx: Context, app: string, path: string, opts: AddOptions) {
  const appId = parseName(app, 'app');
  const mode = parseChoice(opts.mode, SHARE_MODES, '--mode') ?? 'read';
  const expires =
    opts.expiresIn === undefined ? undefined : parseDuration(opts.expiresIn, '--expires-in');
  if (expires !== undefined && expires > SHARE_EXPIRES_MAX_S) {
    throw new UsageError(`--expires-in must be at most a year; received '${opts.expiresIn}'`);
  }
  const client = await ctx.client();
  const made = await client.shares.create({
    app_id: appId,
    path: resolve(path),
    mode,
    ...(expires !== undefined && { expires_in_s: expires }),
  });
  ctx.out.result(made, (colors) => renderShare(made, colors));
  return EXIT.ok;
}

async function list(ctx: Context, opts: { app?: string; limit: string }) {
  const appId = opts.app === undefined ? undefined : parseName(opts.app, '--app');
  const limit = parseLimit(opts.limit);
  const client = await ctx.client();
  const page = await client.shares.list({ ...(appId !== undefined && { app_id: appId }), limit });
  ctx.out.result(page, (colors) => renderShareTable(page.data, colors));
  return EXIT.ok;
}

async function remove(ctx: Context, id: string) {
  const shareId = parseId('share', id, 'share id');
  const client = await ctx.client();
  const answer = await client.shares.delete(shareId);
  ctx.out.result(answer, () => `deleted ${answer.id}`);
  return EXIT.ok;
}
