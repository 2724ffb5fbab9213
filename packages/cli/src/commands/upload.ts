/**
 * `svc upload FILE` and `svc attachment link ID` (docs/cli.md "svc upload, svc attachment"):
 * hand the daemon a file for your runs, and get a short-lived link that serves it. Every
 * argument is checked before anything is sent (exit 2).
 */
import { basename, resolve } from 'node:path';
import {
  ATTACHMENT_TTL_MAX_S,
  mediaTypeSchema,
  UPLOAD_MAX_BYTES,
  uploadFilenameSchema,
} from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { renderUpload } from '../output/app-api-view.ts';
import { parseDuration } from '../parse/duration.ts';
import { parseId } from '../parse/id.ts';
import { type ContentLimit, readLocal } from '../parse/local-content.ts';
import { mediaTypeOf } from '../parse/media-type.ts';

interface UploadOptions {
  name?: string;
  type?: string;
}

export function registerUpload(program: Command, runtime: Runtime): void {
  program
    .command('upload')
    .description('hand the daemon a file (at most 1 MiB) for your runs; prints the upload')
    .argument('<file>', 'the local file')
    .option('--name <filename>', "the name it is stored under (default: the file's own)")
    .option(
      '--type <media-type>',
      'its media type (default: from the file name, e.g. .pdf → application/pdf; else application/octet-stream)',
    )
    .action(action(runtime, upload));
  const attachment = program
    .command('attachment')
    .description("links that serve an upload's bytes without a token, for a while");
  attachment
    .command('link')
    .description('a URL on the TCP listener serving the upload until it expires (needs it on)')
    .argument('<id>', 'upload id (upl_…)')
    .option('--ttl <duration>', 'how long the link works: 1s to 1h (default 5m)')
    .action(action(runtime, link));
}

/** `value` when `schema` takes it; else a usage error naming `flag`, before any request. */
function checked(
  schema: typeof uploadFilenameSchema | typeof mediaTypeSchema,
  value: string,
  flag: string,
): string {
  const issue = schema.safeParse(value).error?.issues[0];
  if (issue !== undefined) throw new UsageError(`${flag} ${issue.message}; received '${value}'`);
  return value;
}

const UPLOAD_LIMIT: ContentLimit = {
  bytes: UPLOAD_MAX_BYTES,
  rule: `an upload takes at most ${UPLOAD_MAX_BYTES} (1 MiB)`,
};

async function upload(ctx: Context, file: string, opts: UploadOptions) {
  const path = resolve(file);
  const filename = checked(uploadFilenameSchema, opts.name ?? basename(path), '--name');
  const mediaType =
    opts.type === undefined ? mediaTypeOf(filename) : checked(mediaTypeSchema, opts.type, '--type');
  const bytes = await readLocal(file, UPLOAD_LIMIT);
  const client = await ctx.client();
  const up = await client.uploads.create({
    filename,
    ...(mediaType !== undefined && { media_type: mediaType }),
    content_base64: bytes.toString('base64'),
  });
  ctx.out.result(up, (colors) => renderUpload(up, colors));
  return EXIT.ok;
}

async function link(ctx: Context, id: string, opts: { ttl?: string }) {
  const uploadId = parseId('upload', id, 'upload id');
  const ttl =
    opts.ttl === undefined ? undefined : parseDuration(opts.ttl, '--ttl', ATTACHMENT_TTL_MAX_S);
  const client = await ctx.client();
  const answer = await client.attachments.link({
    upload_id: uploadId,
    ...(ttl !== undefined && { ttl_s: ttl }),
  });
  // The URL alone on stdout, so `$(svc attachment link …)` is the link.
  ctx.out.result(answer, () => answer.url);
  if (!ctx.out.json) ctx.out.note(`svc: the link works until ${answer.expires_at}`);
  return EXIT.ok;
}
