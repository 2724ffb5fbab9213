import {
  type Connection,
  type DirectoryKey,
  parseScopeList,
  ScopeError,
  type Token,
} from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { cell } from '../output/format.ts';
import { whenCell } from '../output/relative-time.ts';
import { renderFields, renderTable } from '../output/table.ts';
import { parseDuration } from '../parse/duration.ts';
import { parseId } from '../parse/id.ts';
import { parseListenAddress } from '../parse/listen.ts';
import { parseName } from '../parse/name.ts';
import { openViewer } from './open-viewer.ts';
import { allPages, type Page, pageQuery } from './shared/pages.ts';

export function registerSys(program: Command, runtime: Runtime): void {
  const sys = program
    .command('sys')
    .description('connect browsers and remote apps; manage tokens and the directory key');

  sys
    .command('connect')
    .description(
      'turn the TCP listener on and print base_url with a bearer token; --open: log in to the web viewer',
    )
    .option('--app <id>', 'mint a scoped token for this app instead of using the owner token')
    // Variadic, and each use adds: `--scopes svc:llm svc:act`, `--scopes svc:llm,svc:act` and
    // `--scopes svc:llm --scopes svc:act` all mean both (connect takes no positional argument).
    .option(
      '--scopes <scope...>',
      "the app token's scopes (requires --app), e.g. svc:llm,svc:act or svc:llm svc:act",
    )
    .option('--expires-in <duration>', 'token lifetime, e.g. 90s, 15m, 12h, 30d')
    .option(
      '--tcp <[host:]port>',
      'where the TCP listener binds if it is off (default 127.0.0.1, any free port)',
    )
    .option('--open', 'open the web viewer in your browser with a one-time login link (60 s)')
    .option(
      '--no-browser',
      'with --open: print the link instead of opening it (or SVC_NO_BROWSER=1)',
    )
    .addHelpText(
      'after',
      `
Examples:
  svc sys connect --open
  svc sys connect --app notes --scopes svc:llm,svc:act --expires-in 30d --json`,
    )
    .action(action(runtime, connect));

  const tokens = sys.command('tokens').description('list and revoke bearer tokens');
  tokens
    .command('list')
    .description('every token: kind, app, scopes, expiry, last use (never the secret)')
    .action(action(runtime, listTokens));
  tokens
    .command('revoke')
    .description('revoke a token; requests carrying it answer 401 from now on')
    .argument('<id>', 'token id (tok_…)')
    .action(action(runtime, revokeToken));

  const directory = sys
    .command('directory')
    .description("the daemon's directory key, which signs agents' calls to directory-mode plugins");
  directory
    .command('keys')
    .description(
      'the published keys: the one that signs, the next, then those retiring (no private key)',
    )
    .action(action(runtime, listDirectoryKeys));
  directory
    .command('rotate')
    .description(
      'sign with the next key, published ahead, from now on; the old one stays published for 10 minutes so the tokens it signed still verify',
    )
    .option(
      '--revoke-previous',
      'after a leak: make two new keys and publish no other (the tokens the old ones signed fail once a plugin refetches the key set)',
    )
    .action(action(runtime, rotateDirectoryKey));
}

async function connect(
  ctx: Context,
  opts: {
    app?: string;
    scopes?: string[];
    expiresIn?: string;
    tcp?: string;
    open?: boolean;
    browser?: boolean;
  },
) {
  if (opts.open === true) {
    const body = opts.tcp === undefined ? {} : connectBody({ tcp: opts.tcp });
    return openViewer(ctx, opts, body);
  }
  const body = connectBody(opts);
  const client = await ctx.client();
  const answer = (await client.request('POST', '/v1/connect', body)) as Connection;
  ctx.out.result(answer, (colors) =>
    renderFields(
      [
        ['base_url', answer.base_url],
        ['token', answer.token],
        ['token_id', answer.token_id],
        ['app', cell(answer.app_id)],
        ['scopes', answer.scopes === null ? 'everything (owner)' : cell(answer.scopes)],
        ['expires', answer.expires_at ?? 'never'],
      ],
      colors,
    ),
  );
  return EXIT.ok;
}

/**
 * Checked here as well as by the daemon so a mistake fails at once, with the reason
 * `parseScopeList` gives (a retired name names its `svc:` form).
 */
export function connectBody(opts: {
  app?: string;
  scopes?: readonly string[];
  expiresIn?: string;
  tcp?: string;
}): Record<string, unknown> {
  if (opts.scopes !== undefined && opts.app === undefined) {
    throw new UsageError(
      '--scopes requires --app <id>: scopes narrow an app token; the owner token holds everything',
    );
  }
  if (opts.expiresIn !== undefined && opts.app === undefined) {
    throw new UsageError(
      '--expires-in requires --app <id>: it sets when an app token ends; the owner token never does',
    );
  }
  const body: Record<string, unknown> = {};
  if (opts.app !== undefined) {
    body.app_id = parseName(opts.app, '--app');
  }
  if (opts.scopes !== undefined) {
    try {
      body.scopes = parseScopeList(opts.scopes.join(','));
    } catch (err) {
      if (err instanceof ScopeError) throw new UsageError(`--scopes: ${err.message}`);
      throw err;
    }
  }
  if (opts.expiresIn !== undefined)
    body.expires_in_s = parseDuration(opts.expiresIn, '--expires-in');
  if (opts.tcp !== undefined) Object.assign(body, parseListenAddress(opts.tcp, '--tcp'));
  return body;
}

async function listTokens(ctx: Context) {
  const client = await ctx.client();
  const rows = await allPages(
    (after) => client.request('GET', `/v1/tokens${pageQuery(after)}`) as Promise<Page<Token>>,
  );
  ctx.out.result({ data: rows }, (colors) =>
    renderTable(
      rows,
      [
        { header: 'ID', value: (t) => t.id },
        { header: 'KIND', value: (t) => t.kind },
        { header: 'APP', value: (t) => cell(t.app_id) },
        {
          header: 'STATE',
          value: tokenState,
          style: (padded, raw, c) => (raw === 'active' ? c.green(padded) : c.dim(padded)),
        },
        { header: 'CREATED', value: (t) => whenCell(t.created_at) },
        { header: 'EXPIRES', value: (t) => whenCell(t.expires_at, 'never') },
        { header: 'LAST USED', value: (t) => whenCell(t.last_used_at) },
        { header: 'SCOPES', value: (t) => (t.scopes === null ? 'everything' : cell(t.scopes)) },
      ],
      colors,
      'tokens',
    ),
  );
  return EXIT.ok;
}

function tokenState(token: Token): string {
  if (token.revoked_at !== null) return 'revoked';
  if (token.expires_at !== null && Date.parse(token.expires_at) <= Date.now()) return 'expired';
  return 'active';
}

async function revokeToken(ctx: Context, id: string) {
  const checked = parseId('token', id);
  const client = await ctx.client();
  const token = (await client.request('DELETE', `/v1/tokens/${checked}`)) as Token;
  ctx.out.result(token, () => `revoked ${token.id}${token.app_id ? ` (app ${token.app_id})` : ''}`);
  return EXIT.ok;
}

async function listDirectoryKeys(ctx: Context) {
  const client = await ctx.client();
  const answer = (await client.request('GET', '/v1/directory/keys')) as { keys: DirectoryKey[] };
  ctx.out.result(answer, (colors) => directoryKeysTable(answer.keys, colors));
  return EXIT.ok;
}

async function rotateDirectoryKey(ctx: Context, opts: { revokePrevious?: boolean }) {
  const client = await ctx.client();
  const answer = (await client.request('POST', '/v1/directory/keys/rotate', {
    revoke_previous: opts.revokePrevious === true,
  })) as { keys: DirectoryKey[] };
  ctx.out.result(answer, (colors) => directoryKeysTable(answer.keys, colors));
  return EXIT.ok;
}

function directoryKeysTable(keys: DirectoryKey[], colors: Parameters<typeof renderTable>[2]) {
  return renderTable(
    keys,
    [
      { header: 'KID', value: (k) => k.kid },
      {
        header: 'STATE',
        value: (k) => k.state,
        style: (padded, raw, c) => (raw === 'active' ? c.green(padded) : c.dim(padded)),
      },
      { header: 'CREATED', value: (k) => whenCell(k.created_at) },
      { header: 'PUBLISHED UNTIL', value: (k) => cell(k.until) },
    ],
    colors,
    'keys',
  );
}
