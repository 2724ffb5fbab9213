/**
 * `svc pkg plugin …`: the daemon's plugin registry (DESIGN §5). The client has no namespace for
 * it (the spec's resource map names none), so these go through `client.request`.
 */
import { APIError } from '@svc/client';
import {
  BEARER_TOKEN_PATTERN,
  type Plugin,
  pluginEndpointSchema,
  pluginToolName,
} from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { CliError, EXIT, UsageError } from '../errors.ts';
import type { Palette } from '../output/color.ts';
import { describeFailure } from '../output/error-line.ts';
import { renderFields, renderTable } from '../output/table.ts';
import { parseEnvName, parseName } from '../parse/name.ts';
import { allPages, type Page, pageQuery } from './shared/pages.ts';

export function registerPkg(program: Command, runtime: Runtime): void {
  const pkg = program.command('pkg').description('packages the daemon installs');
  const plugin = pkg
    .command('plugin')
    .description('capability providers built with the plugin kit');
  plugin
    .command('install')
    .description("read a plugin's archive from where it is served, and install it")
    .requiredOption(
      '--endpoint <url>',
      'the public URL where the handler is mounted, mount path included',
    )
    .requiredOption('--name <name>', 'the plugin name its archive must declare')
    .option(
      '--auth-env <NAME>',
      "the variable holding a shared token: read from this shell to fetch the archive, and by each calling broker from its profile's env store",
    )
    .action(action(runtime, install));
  plugin.command('ls').description('the installed plugins').action(action(runtime, list));
  plugin
    .command('show')
    .description('one installed plugin and its commands')
    .argument('<name>', 'plugin name')
    .action(action(runtime, show));
  plugin
    .command('rm')
    .description('uninstall a plugin')
    .argument('<name>', 'plugin name')
    .action(action(runtime, remove));
}

function endpointOf(value: string): string {
  if (!pluginEndpointSchema.safeParse(value).success) {
    throw new UsageError(
      `--endpoint must be an http(s) URL with no credentials, query or fragment; received '${shown(value)}'`,
    );
  }
  return value;
}

/** A refused URL as it may be echoed: credentials and query, which may hold a secret, left out. */
function shown(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.username === '' && url.password === '' && url.search === '') return value;
  return `${url.protocol}//${url.host}${url.pathname} (credentials and query not repeated)`;
}

interface InstallOptions {
  endpoint: string;
  name: string;
  authEnv?: string;
}

async function install(ctx: Context, opts: InstallOptions) {
  const body: Record<string, string> = {
    endpoint: endpointOf(opts.endpoint),
    name: parseName(opts.name, '--name'),
  };
  if (opts.authEnv !== undefined) {
    body.auth_env = parseEnvName(opts.authEnv, '--auth-env');
    // SPEC: the variable of the calling process. Here that is this shell, for the archive; a
    // broker reads its own from the profile env store when it calls a command.
    const token = ctx.io.env[opts.authEnv];
    if (token !== undefined && token !== '') {
      // Named here, where the variable is known: the daemon could only name its body's field.
      if (!BEARER_TOKEN_PATTERN.test(token)) {
        throw new UsageError(
          `${opts.authEnv} must hold the token alone: visible ASCII, no spaces or line breaks (a token read from a file keeps its trailing newline)`,
        );
      }
      body.token = token;
    }
  }
  // Without the token the archive is fetched bare: said after a success, and within the one
  // line of a failure (which it most likely explains), never as a line of its own before it.
  const unset =
    opts.authEnv !== undefined && body.token === undefined
      ? `${opts.authEnv} is not set here: the archive was fetched without a token`
      : undefined;
  const client = await ctx.client();
  let installed: Plugin;
  try {
    installed = (await client.request('POST', '/v1/plugins', body)) as Plugin;
  } catch (error) {
    if (unset !== undefined && error instanceof APIError) {
      throw new CliError(`${describeFailure(error).line.replace(/^svc: /, '')}; ${unset}`);
    }
    throw error;
  }
  ctx.out.result(installed, (colors) => renderPlugin(installed, colors));
  if (unset !== undefined) ctx.out.note(unset);
  if (installed.auth === 'token' && installed.auth_env !== null) {
    ctx.out.note(
      `brokers read ${installed.auth_env} from their profile's env store: printf %s "$${installed.auth_env}" | svc profile env set <profile> --name ${installed.auth_env}`,
    );
  } else if (opts.authEnv !== undefined) {
    ctx.out.note(
      `${installed.name} takes no shared token (auth ${installed.auth}): --auth-env was not kept`,
    );
  }
  if (installed.auth === 'directory') {
    // What its handler must be given to accept the tokens brokers call it with.
    const tcp = (await client.system.status()).tcp;
    const issuer =
      tcp === null
        ? "<the TCP listener's base_url: turn it on with svc sys connect>"
        : `'${tcp.base_url}'`;
    ctx.out.note(
      `agents call ${installed.name} with tokens the daemon signs: its handler needs auth: { issuer: ${issuer}, audience: '${installed.endpoint}' }`,
    );
  }
  return EXIT.ok;
}

async function show(ctx: Context, name: string) {
  const plugin = await pluginAt(ctx, 'GET', name);
  ctx.out.result(plugin, (colors) => renderPlugin(plugin, colors));
  return EXIT.ok;
}

async function remove(ctx: Context, name: string) {
  const plugin = await pluginAt(ctx, 'DELETE', name);
  ctx.out.result(plugin, () => `removed plugin ${plugin.name}`);
  return EXIT.ok;
}

/** `GET` or `DELETE /v1/plugins/{name}`, the name checked here before any request. */
async function pluginAt(ctx: Context, method: 'GET' | 'DELETE', name: string): Promise<Plugin> {
  const path = `/v1/plugins/${parseName(name, 'plugin name')}`;
  const client = await ctx.client();
  return (await client.request(method, path)) as Plugin;
}

async function list(ctx: Context) {
  const client = await ctx.client();
  const rows = await allPages(
    (after) => client.request('GET', `/v1/plugins${pageQuery(after)}`) as Promise<Page<Plugin>>,
  );
  ctx.out.result({ data: rows }, (colors) =>
    renderTable(
      rows,
      [
        { header: 'NAME', value: (p) => p.name },
        { header: 'MAJOR', value: (p) => (p.major === null ? '-' : String(p.major)) },
        { header: 'AUTH', value: (p) => p.auth },
        { header: 'COMMANDS', value: (p) => String(p.commands.length) },
        { header: 'ORIGIN', value: (p) => p.origin },
      ],
      colors,
      'plugins',
    ),
  );
  return EXIT.ok;
}

function renderPlugin(p: Plugin, colors: Palette): string {
  const fields = renderFields(
    [
      ['name', p.name],
      ['description', p.description],
      ['major', p.major === null ? 'unversioned' : `${p.major} of ${p.supported?.join(', ')}`],
      ['endpoint', p.endpoint],
      ['transport', p.origin],
      ['auth', p.auth_env === null ? p.auth : `${p.auth} (token in ${p.auth_env})`],
      ['updated', p.updated_at],
    ],
    colors,
  );
  const commands = renderTable(
    p.commands,
    [
      { header: 'COMMAND', value: (c) => `${c.group}.${c.name}` },
      { header: 'SCOPE', value: (c) => c.scope },
      { header: 'PATH', value: (c) => `${c.method} ${c.path}` },
      // What a node's model calls it, if agents are offered it.
      { header: 'TOOL', value: (c) => pluginToolName(c) ?? '- (not offered)' },
    ],
    colors,
    'commands',
  );
  return `${fields}\n\n${commands}`;
}
