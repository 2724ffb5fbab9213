import type { Profile, ProfileEnsureParams } from '@svc/client';
import {
  ENV_VALUE_MAX_LENGTH,
  LIST_LIMIT_MAX,
  parseScopeList,
  profileEnsureBodySchema,
  ScopeError,
} from '@svc/protocol';
import type { Command } from 'commander';
import { action, type Context, type Runtime } from '../context.ts';
import { EXIT, UsageError } from '../errors.ts';
import type { Palette } from '../output/color.ts';
import { cell } from '../output/format.ts';
import { renderFields, renderTable } from '../output/table.ts';
import { parseModelRef } from '../parse/model-ref.ts';
import { parseEnvName, parseName } from '../parse/name.ts';
import { moreScopes, parseBudgets, readJson } from '../parse/node-create.ts';
import { readSecret } from '../parse/secret-input.ts';
import { allPages } from './shared/pages.ts';

export function registerProfile(program: Command, runtime: Runtime): void {
  const profile = program.command('profile').description('named agent configurations');

  profile
    .command('ensure')
    .description('create a profile or set the fields given; the others are kept')
    .argument('<name>', 'profile name')
    .option('--description <text>', 'what the profile is for')
    .option('--model <provider/model>', "its nodes' model (default: the configured default)")
    .option('--script <file>', "JSON list of turns a 'scripted/<name>' model replays")
    .option('--system-prompt <text>', 'the system prompt of its nodes')
    .option('--tools <list>', 'comma-separated tools its nodes may use, e.g. bash,spawn,submit')
    .option(
      '--scopes <list>',
      'comma-separated default scopes of its nodes, e.g. svc:llm,svc:act (or the option repeated)',
      moreScopes,
    )
    .option('--max-turns <n>', 'default turn budget of its nodes')
    .option('--max-tokens <n>', 'default token budget of its nodes')
    .option('--max-cost-usd <usd>', 'default cost budget of its nodes')
    .addHelpText(
      'after',
      `
Examples:
  svc profile ensure researcher --model anthropic/claude-sonnet-4-5 --tools bash,spawn,wait,submit
  svc profile ensure worker --model scripted/worker --script worker-turns.json
  svc profile ensure researcher --system-prompt "Cite your sources." --max-turns 40`,
    )
    .action(action(runtime, ensure));
  profile
    .command('show')
    .description('one profile (env names only, never values)')
    .argument('<name>', 'profile name')
    .action(action(runtime, show));
  profile.command('ls').description('the profiles, by name').action(action(runtime, listProfiles));

  const env = profile
    .command('env')
    .description("the profile's env store: values only its brokers receive");
  env
    .command('set')
    .description('store a value read from stdin (never from a flag, never printed back)')
    .argument('<profile>', 'profile name')
    .requiredOption('--name <NAME>', 'the variable name')
    .action(action(runtime, setEnv));
  env
    .command('rm')
    .description('remove a variable')
    .argument('<profile>', 'profile name')
    .requiredOption('--name <NAME>', 'the variable name')
    .action(action(runtime, removeEnv));
}

function list(value: string): string[] {
  return value.split(/[\s,]+/).filter((v) => v !== '');
}

interface EnsureOptions {
  description?: string;
  model?: string;
  script?: string;
  systemPrompt?: string;
  tools?: string;
  scopes?: string;
  maxTurns?: string;
  maxTokens?: string;
  maxCostUsd?: string;
}

export function ensureBody(opts: EnsureOptions): ProfileEnsureParams {
  const body: ProfileEnsureParams = {};
  if (opts.description !== undefined) body.description = opts.description;
  if (opts.model !== undefined) body.model = parseModelRef(opts.model, '--model');
  if (opts.script !== undefined) {
    if (body.model?.provider !== 'scripted') {
      throw new UsageError(
        '--script needs --model scripted/<name>: a real model is never replaced by a script',
      );
    }
    body.model = { ...body.model, script: readJson(opts.script, '--script') as never };
  }
  if (opts.systemPrompt !== undefined) body.system_prompt = opts.systemPrompt;
  if (opts.tools !== undefined) body.tools = list(opts.tools);
  if (opts.scopes !== undefined) {
    try {
      body.scopes = parseScopeList(opts.scopes);
    } catch (err) {
      if (err instanceof ScopeError) throw new UsageError(`--scopes: ${err.message}`);
      throw err;
    }
  }
  const budgets = parseBudgets(opts);
  if (budgets !== undefined) body.budgets = budgets;
  // The daemon's own schema, so a bad script is a usage error here, before anything is sent.
  const issue = profileEnsureBodySchema.safeParse(body).error?.issues[0];
  if (issue !== undefined) {
    const [field, ...rest] = issue.path.map(String);
    const where =
      field === 'model' && rest[0] === 'script' ? ['--script', ...rest.slice(1)] : [field, ...rest];
    throw new UsageError(`${where.join('.')}: ${issue.message}`);
  }
  return body;
}

function renderProfile(p: Profile, colors: Palette): string {
  const limit = (v: number | null) => (v === null ? 'none' : String(v));
  return renderFields(
    [
      ['name', p.name],
      ['description', cell(p.description)],
      [
        'model',
        p.model === null
          ? 'the configured default'
          : `${p.model.provider}/${p.model.model}${p.scripted_turns === null ? '' : ` (${p.scripted_turns} scripted turns)`}`,
      ],
      ['system_prompt', cell(p.system_prompt)],
      ['tools', p.tools === null ? 'every tool its scopes allow' : cell(p.tools)],
      ['scopes', p.scopes === null ? "the creator's" : cell(p.scopes)],
      [
        'budgets',
        `turns ${limit(p.budgets.max_turns)}, tokens ${limit(p.budgets.max_tokens)}, usd ${limit(p.budgets.max_cost_usd)}`,
      ],
      ['env', p.env.length === 0 ? 'none' : p.env.map((e) => e.name).join(', ')],
      ['owner', p.app_id === null ? 'the owner' : `app ${p.app_id}`],
      ['updated', p.updated_at],
    ],
    colors,
  );
}

async function ensure(ctx: Context, name: string, opts: EnsureOptions) {
  const checked = parseName(name, 'profile name');
  const body = ensureBody(opts);
  const client = await ctx.client();
  const profile = await client.profiles.ensure(checked, body);
  ctx.out.result(profile, (colors) => renderProfile(profile, colors));
  return EXIT.ok;
}

async function show(ctx: Context, name: string) {
  const client = await ctx.client();
  const profile = await client.profiles.retrieve(parseName(name, 'profile name'));
  ctx.out.result(profile, (colors) => renderProfile(profile, colors));
  return EXIT.ok;
}

async function listProfiles(ctx: Context) {
  const client = await ctx.client();
  const rows = await allPages((after) =>
    client.profiles.list({ limit: LIST_LIMIT_MAX, ...(after !== undefined && { after }) }),
  );
  ctx.out.result({ data: rows }, (colors) =>
    renderTable(
      rows,
      [
        { header: 'NAME', value: (p) => p.name },
        {
          header: 'MODEL',
          value: (p) => (p.model === null ? 'default' : `${p.model.provider}/${p.model.model}`),
        },
        { header: 'OWNER', value: (p) => p.app_id ?? 'owner' },
        { header: 'ENV', value: (p) => String(p.env.length) },
        { header: 'DESCRIPTION', value: (p) => cell(p.description) },
      ],
      colors,
      'profiles',
    ),
  );
  return EXIT.ok;
}

async function setEnv(ctx: Context, profile: string, opts: { name: string }) {
  const name = parseName(profile, 'profile name');
  const variable = parseEnvName(opts.name, '--name');
  const value = await readSecret({
    env: ctx.io.env,
    flag: '--name',
    maxLength: ENV_VALUE_MAX_LENGTH,
  });
  if (value === null) {
    throw new UsageError(
      `pipe the value of ${variable} on stdin, e.g. \`printf %s "$VALUE" | svc profile env set ${name} --name ${variable}\``,
    );
  }
  const client = await ctx.client();
  // Not a client method: SPEC keeps credential material to `models.credentials.install`.
  const answer = await client.request<Profile>('PUT', envPath(name, variable), { value });
  ctx.out.result(answer, () => `stored ${variable} for profile ${name} (the value is never shown)`);
  return EXIT.ok;
}

async function removeEnv(ctx: Context, profile: string, opts: { name: string }) {
  const name = parseName(profile, 'profile name');
  const variable = parseEnvName(opts.name, '--name');
  const client = await ctx.client();
  const answer = await client.request<Profile>('DELETE', envPath(name, variable));
  ctx.out.result(answer, () => `removed ${variable} from profile ${name}`);
  return EXIT.ok;
}

/** The env store's route for checked names (`parseName`, `parseEnvName`): nothing to escape. */
function envPath(profile: string, variable: string): string {
  return `/v1/profiles/${profile}/env/${variable}`;
}
