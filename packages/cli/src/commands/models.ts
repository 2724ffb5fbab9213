import type { CredentialInstallParams, CredentialProvider, ModelConfig } from '@svc/client';
import { API_KEY_MAX_LENGTH, CREDENTIAL_PROVIDERS, isName } from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import { cell } from '../output/format.ts';
import { renderFields, renderTable } from '../output/table.ts';
import { parseModelRef } from '../parse/model-ref.ts';
import { readSecret } from '../parse/secret-input.ts';

export function registerModels(program: Command, runtime: Runtime): void {
  const models = program
    .command('models')
    .description('model provider credentials and the default model');

  models
    .command('list')
    .description('each provider: ready or not and why, whether a key is held (never the key)')
    .action(action(runtime, list));
  models
    .command('install')
    .description(
      "store a provider's API key (read from stdin, or from the variable --key-env names) and base URL",
    )
    .argument('<provider>', CREDENTIAL_PROVIDERS.join(' | '))
    .option(
      '--base-url <url>',
      'the API root with its version segment, e.g. http://127.0.0.1:11434/v1',
    )
    .option('--key-env <name>', 'read the key from this environment variable instead of stdin')
    .addHelpText(
      'after',
      `
Examples:
  printf %s "$ANTHROPIC_API_KEY" | svc models install anthropic
  svc models install openai --key-env OPENAI_API_KEY
  svc models install openai-compatible --base-url http://127.0.0.1:11434/v1`,
    )
    .action(action(runtime, install));
  models
    .command('remove')
    .description("forget a provider's credentials")
    .argument('<provider>', CREDENTIAL_PROVIDERS.join(' | '))
    .action(action(runtime, remove));

  const config = models
    .command('config')
    .description('the default model and per-profile overrides');
  config
    .command('show')
    .description('the default model and the per-profile overrides')
    .action(action(runtime, showConfig));
  // commander folds `--default X` and `--no-default` into one option, the last given winning:
  // given both, which one was meant is unknown, so that is a usage error.
  const given = new Set<string>();
  config
    .command('set')
    .description('change the default model or a profile override; the rest is kept')
    .option('--default <provider/model>', 'the model nodes use when nothing else names one')
    .option('--no-default', 'remove the default model')
    .option('--profile <name=provider/model...>', "override a profile's model")
    .option('--unset-profile <name...>', 'remove the override of a profile')
    .on('option:default', () => given.add('--default'))
    .on('option:no-default', () => given.add('--no-default'))
    .hook('preAction', () => {
      if (given.size > 1) throw new UsageError('give --default or --no-default, not both');
    })
    .action(action(runtime, setConfig));
}

interface ProviderRow {
  provider: string;
  ready: boolean;
  reason?: string;
  label: string;
  has_key: boolean;
  base_url: string | null;
  checked_at: string | null;
}

async function list(ctx: Context) {
  const client = await ctx.client();
  const [credentials, readiness] = await Promise.all([
    client.models.credentials.list(),
    client.request<{ providers: Omit<ProviderRow, 'has_key' | 'base_url'>[] }>(
      'GET',
      '/v1/model-auth/readiness',
    ),
  ]);
  const rows: ProviderRow[] = readiness.providers.map((p) => {
    const stored = credentials.data.find((c) => c.provider === p.provider);
    return { ...p, has_key: stored?.has_key ?? false, base_url: stored?.base_url ?? null };
  });
  ctx.out.result({ data: rows }, (colors) =>
    renderTable(
      rows,
      [
        { header: 'PROVIDER', value: (r) => r.provider },
        {
          header: 'READY',
          value: (r) => (r.ready ? 'yes' : 'no'),
          style: (padded, raw, c) => (raw === 'yes' ? c.green(padded) : c.yellow(padded)),
        },
        { header: 'KEY', value: (r) => (r.has_key ? 'stored' : '-') },
        { header: 'BASE URL', value: (r) => cell(r.base_url) },
        { header: 'NOTE', value: (r) => r.reason ?? r.label },
      ],
      colors,
    ),
  );
  return EXIT.ok;
}

function credentialProvider(value: string): CredentialProvider {
  if (!(CREDENTIAL_PROVIDERS as readonly string[]).includes(value)) {
    throw new UsageError(
      `provider must be one of ${CREDENTIAL_PROVIDERS.join(', ')} (scripted takes no credentials); received '${value}'`,
    );
  }
  return value as CredentialProvider;
}

async function install(
  ctx: Context,
  providerArg: string,
  opts: { baseUrl?: string; keyEnv?: string },
) {
  const provider = credentialProvider(providerArg);
  const key = await readSecret({
    envName: opts.keyEnv,
    env: ctx.io.env,
    flag: '--key-env',
    maxLength: API_KEY_MAX_LENGTH,
  });
  if (key === null && provider !== 'openai-compatible') {
    throw new UsageError(
      `${provider} needs an API key: pipe it on stdin (e.g. \`pbpaste | svc models install ${provider}\`) or name a variable with --key-env; it is never taken as a flag value`,
    );
  }
  const params: CredentialInstallParams = {};
  if (key !== null) params.api_key = key;
  if (opts.baseUrl !== undefined) params.base_url = opts.baseUrl;
  const client = await ctx.client();
  const stored = await client.models.credentials.install(provider, params);
  ctx.out.result(stored, (colors) =>
    renderFields(
      [
        ['provider', stored.provider],
        ['key', stored.has_key ? 'stored (never shown)' : 'none'],
        ['base_url', stored.base_url ?? 'the public API'],
      ],
      colors,
    ),
  );
  return EXIT.ok;
}

async function remove(ctx: Context, providerArg: string) {
  const provider = credentialProvider(providerArg);
  const client = await ctx.client();
  const answer = await client.models.credentials.remove(provider);
  ctx.out.result(answer, () => `removed the credentials of ${provider}`);
  return EXIT.ok;
}

function renderConfig(config: ModelConfig): string {
  const ref = (m: { provider: string; model: string } | null) =>
    m === null ? 'none' : `${m.provider}/${m.model}`;
  const overrides = Object.entries(config.profiles);
  return [
    `default: ${ref(config.default)}`,
    ...(overrides.length === 0
      ? ['profile overrides: none']
      : ['profile overrides:', ...overrides.map(([name, m]) => `  ${name}: ${ref(m)}`)]),
  ].join('\n');
}

async function showConfig(ctx: Context) {
  const client = await ctx.client();
  const config = await client.models.config.retrieve();
  ctx.out.result(config, () => renderConfig(config));
  return EXIT.ok;
}

async function setConfig(
  ctx: Context,
  opts: { default?: string | false; profile?: string[]; unsetProfile?: string[] },
) {
  const overrides = (opts.profile ?? []).map((pair) => {
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq);
    if (eq <= 0 || !isName(name)) {
      throw new UsageError(`--profile must be NAME=PROVIDER/MODEL; received '${pair}'`);
    }
    return [name, parseModelRef(pair.slice(eq + 1), '--profile')] as const;
  });
  // Undefined when neither --default nor --no-default was given; false for --no-default.
  const chosen =
    typeof opts.default === 'string' ? parseModelRef(opts.default, '--default') : opts.default;
  if (chosen === undefined && overrides.length === 0 && opts.unsetProfile === undefined) {
    throw new UsageError(
      'nothing to set: give --default, --no-default, --profile or --unset-profile',
    );
  }
  const client = await ctx.client();
  // The route replaces the whole configuration, so start from the current one.
  const current = await client.models.config.retrieve();
  const profiles = { ...current.profiles, ...Object.fromEntries(overrides) };
  for (const name of opts.unsetProfile ?? []) delete profiles[name];
  const config = await client.models.config.update({
    default: chosen === undefined ? current.default : chosen === false ? null : chosen,
    profiles,
  });
  ctx.out.result(config, () => renderConfig(config));
  return EXIT.ok;
}
