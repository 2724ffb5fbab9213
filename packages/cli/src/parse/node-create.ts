/**
 * The options of `svc node create` and `svc run start`: the create body of a node (docs/nodes.md
 * "Create body") from flags, checked before anything is sent.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { NodeCreateParams } from '@svc/client';
import {
  nodeCreateBodySchema,
  parseScopeList,
  REQUEST_BODY_MAX_BYTES,
  ScopeError,
} from '@svc/protocol';
import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { parseModelRef } from './model-ref.ts';
import { positive } from './number.ts';

export interface CreateOptions {
  title?: string;
  profile?: string;
  scopes?: string;
  model?: string;
  script?: string;
  maxTurns?: string;
  maxTokens?: string;
  maxCostUsd?: string;
  outputSchema?: string;
  label?: string[];
  repo?: string;
}

/** Adds the create flags to `command`. */
export function withCreateOptions(command: Command): Command {
  return command
    .option('--title <text>', 'title (default: the first line of the task)')
    .option('--profile <name>', "profile (default 'default')")
    .option(
      '--scopes <list>',
      "comma-separated scopes, or the option repeated (default: the creator's)",
      moreScopes,
    )
    .option('--model <provider/model>', "model (default: the profile's, then the configured one)")
    .option('--script <file>', "JSON list of turns a 'scripted/<name>' model replays")
    .option('--max-turns <n>', 'turn budget')
    .option('--max-tokens <n>', 'token budget (input plus output)')
    .option('--max-cost-usd <usd>', 'cost budget')
    .option('--output-schema <file>', 'JSON Schema file the result must match')
    .option('--label <key=value>', 'a metadata label (repeatable)', collect, [])
    .option('--repo <dir>', 'work in a git worktree of this repository, on branch svc/<node id>');
}

/** Commander's parser for a repeatable option: each use adds its value to the list. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The create body for `task` (the words joined) and `opts`. */
export function createBody(task: string[], opts: CreateOptions): NodeCreateParams {
  const text = task.join(' ').trim();
  if (text === '')
    throw new UsageError('give the task as arguments, e.g. svc node create "summarize README.md"');
  const body: NodeCreateParams = { task: text };
  if (opts.title !== undefined) body.title = opts.title;
  if (opts.profile !== undefined) body.profile = opts.profile;
  if (opts.scopes !== undefined) body.scopes = scopes(opts.scopes);
  if (opts.model !== undefined) body.model = parseModelRef(opts.model, '--model');
  if (opts.script !== undefined) {
    if (body.model?.provider !== 'scripted') {
      throw new UsageError(
        '--script needs --model scripted/<name>: a real model is never replaced by a script',
      );
    }
    body.model = { ...body.model, script: readJson(opts.script, '--script') as never };
  }
  const budgets = parseBudgets(opts);
  if (budgets !== undefined) body.budgets = budgets;
  if (opts.outputSchema !== undefined) {
    const schema = readJson(opts.outputSchema, '--output-schema');
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw new UsageError('--output-schema must hold a JSON object (a JSON Schema)');
    }
    body.output_schema = schema as Record<string, unknown>;
  }
  if (opts.label !== undefined && opts.label.length > 0) body.metadata = labels(opts.label);
  // The daemon runs on this host: a relative directory is this shell's.
  if (opts.repo !== undefined) body.workspace = { repo: resolve(opts.repo) };
  // The daemon's own schema, so a bad flag value is a usage error here, before anything is sent.
  const checked = nodeCreateBodySchema.safeParse(body);
  const issue = checked.error?.issues[0];
  if (issue !== undefined) {
    const path = issue.path.map(String);
    // A scripted model's turns come from --script, the rest of the model from --model.
    const [field, ...rest] = path[0] === 'model' && path[1] === 'script' ? path.slice(1) : path;
    const where = [FLAG_OF[field ?? ''] ?? field, ...rest].join('.');
    throw new UsageError(`${where}: ${issue.message}`);
  }
  return body;
}

/** The flag each field of the create body comes from, to name it in a refusal. */
const FLAG_OF: Readonly<Record<string, string>> = {
  task: 'the task',
  title: '--title',
  profile: '--profile',
  scopes: '--scopes',
  model: '--model',
  budgets: '--max-turns, --max-tokens or --max-cost-usd',
  output_schema: '--output-schema',
  metadata: '--label',
  script: '--script',
  workspace: '--repo',
};

/**
 * Commander's parser for a `--scopes` option: each use adds to the list, so `--scopes svc:llm
 * --scopes svc:act` holds both instead of keeping the last.
 */
export function moreScopes(value: string, previous: string | undefined): string {
  return previous === undefined ? value : `${previous},${value}`;
}

/** A comma-separated scope list, canonicalized (legacy names refused with the new form). */
export function scopes(text: string): string[] {
  try {
    return parseScopeList(text.split(/[\s,]+/).filter((s) => s !== ''));
  } catch (err) {
    if (err instanceof ScopeError) throw new UsageError(`--scopes: ${err.message}`);
    throw err;
  }
}

/** `--label key=value` pairs as metadata. */
export function labels(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--label must be key=value; received '${pair}'`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** `--max-turns`, `--max-tokens`, `--max-cost-usd` (of a node or a profile); none given: `undefined`. */
export function parseBudgets(opts: {
  maxTurns?: string | undefined;
  maxTokens?: string | undefined;
  maxCostUsd?: string | undefined;
}): NonNullable<NodeCreateParams['budgets']> | undefined {
  const budgets: NonNullable<NodeCreateParams['budgets']> = {};
  if (opts.maxTurns !== undefined) budgets.max_turns = positive(opts.maxTurns, '--max-turns', true);
  if (opts.maxTokens !== undefined)
    budgets.max_tokens = positive(opts.maxTokens, '--max-tokens', true);
  if (opts.maxCostUsd !== undefined)
    budgets.max_cost_usd = positive(opts.maxCostUsd, '--max-cost-usd', false);
  return Object.keys(budgets).length > 0 ? budgets : undefined;
}

/** A JSON file's value; like every local read, a device or an oversized file is refused unread. */
export function readJson(file: string, flag: string): unknown {
  let text: string;
  try {
    const info = statSync(file);
    if (!info.isFile()) throw new UsageError(`${flag}: ${file} is not a regular file`);
    if (info.size > REQUEST_BODY_MAX_BYTES) {
      throw new UsageError(
        `${flag}: ${file} is ${info.size} bytes; a JSON file sent is at most ${REQUEST_BODY_MAX_BYTES}`,
      );
    }
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag}: ${file} is not JSON: ${(err as Error).message}`);
  }
}
