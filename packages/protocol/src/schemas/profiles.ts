/**
 * Profiles (`profiles.ensure`, `profiles.retrieve`): a named agent configuration that nodes are
 * created with: model, system prompt, tools allowed, default scopes and budgets, and an env store
 * whose values only brokers receive (set with `svc profile env set <profile> --name NAME`).
 */
import { z } from 'zod';
import { TOOL_NAME_PATTERN } from '../nodes/tools.ts';
import {
  ENV_VALUE_MAX_LENGTH,
  nameSchema,
  processText,
  scopeSchema,
  timestampSchema,
} from './common.ts';
import { modelChoiceSchema, modelRefSchema } from './models.ts';
import { networkPolicySchema } from './network.ts';
import { budgetsInputSchema, budgetsSchema, workspaceInputSchema } from './nodes.ts';

/** A tool a profile may allow: a built-in (`bash`, `spawn`, …) or a plugin group `<plugin>:<group>`. */
export const toolNameSchema = z
  .string()
  .regex(TOOL_NAME_PATTERN)
  .describe(
    "a built-in tool name (bash, read_file, write_file, list_files, spawn, message, wait, yield, submit, report) or '<plugin>:<group>'",
  );

/** An environment variable name of the profile env store (POSIX portable: letters, digits, _). */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

export const envNameSchema = z
  .string()
  .regex(ENV_NAME_PATTERN)
  .describe('a letter or _, then up to 127 letters, digits or _');

export const profileParamsSchema = z.object({ name: nameSchema });

export const profileEnvParamsSchema = z.object({ name: nameSchema, var: envNameSchema });

/**
 * `PUT /v1/profiles/{name}`: makes sure the profile exists with these settings. A field given is
 * set (`null` clears it back to the default); a field omitted keeps its current value, or the
 * default for a new profile. Repeating the same body changes nothing.
 */
export const profileEnsureBodySchema = z.strictObject({
  description: z.string().max(2000).nullable().optional(),
  model: modelChoiceSchema
    .nullable()
    .optional()
    .describe('null = the configured default (PUT /v1/model-config)'),
  system_prompt: z.string().max(200_000).nullable().optional(),
  tools: z
    .array(toolNameSchema)
    .max(256)
    .nullable()
    .optional()
    .describe('the tools its nodes may use; null = every tool their scopes allow'),
  scopes: z
    .array(scopeSchema)
    .max(256)
    .nullable()
    .optional()
    .describe("default scope list of its nodes; null = inherit the creator's"),
  budgets: budgetsInputSchema.optional().describe('default budgets of its nodes'),
  workspace: workspaceInputSchema
    .nullable()
    .optional()
    .describe(
      "default git workspace of its nodes, checked at each node's create against its creator; null = plain directories",
    ),
  network: networkPolicySchema
    .nullable()
    .optional()
    .describe(
      "the network of its nodes' sandboxed commands: none, or host (the owner's token only); null = the daemon's default",
    ),
  command_env: z
    .array(envNameSchema)
    .max(64)
    .nullable()
    .optional()
    .describe(
      "names from its env store exported into its nodes' sandboxed commands (e.g. a tool's API key); null = none",
    ),
});
export type ProfileEnsureBody = z.output<typeof profileEnsureBodySchema>;

/** `PUT /v1/profiles/{name}/env/{var}`: the value is stored for brokers and never answered. */
export const profileEnvSetBodySchema = z.strictObject({
  value: processText(ENV_VALUE_MAX_LENGTH), // a broker's environment
});

export const profileSchema = z.object({
  name: z.string(),
  description: z.string().nullable(),
  model: modelRefSchema.nullable().describe('null = the configured default'),
  scripted_turns: z
    .number()
    .int()
    .nullable()
    .describe("how many turns a 'scripted' profile replays; null for other models"),
  system_prompt: z.string().nullable(),
  tools: z.array(z.string()).nullable(),
  scopes: z.array(z.string()).nullable(),
  budgets: budgetsSchema,
  workspace: z
    .object({ repo: z.string(), base: z.string().nullable() })
    .nullable()
    .describe("its nodes' default git workspace; null = plain-directory worktrees"),
  network: networkPolicySchema
    .nullable()
    .describe("its nodes' sandbox network; null = the daemon's default (none unless configured)"),
  command_env: z
    .array(z.string())
    .describe("names from its env store its nodes' sandboxed commands get; the rest stay out"),
  env: z
    .array(z.object({ name: z.string(), updated_at: timestampSchema }))
    .describe('the names in the env store; values are never answered'),
  app_id: z.string().nullable().describe('the app that created it; null = the owner'),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
/** A profile; `env` lists names only, never values. */
export type Profile = z.output<typeof profileSchema>;
