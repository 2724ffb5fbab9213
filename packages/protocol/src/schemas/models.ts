/**
 * Model providers, the model a node or call uses, stored credentials (`models.credentials`), the
 * default model configuration (`models.config`) and provider readiness. No answer schema here has
 * a field that carries credential material: `api_key` only ever travels in the install body.
 */
import { z } from 'zod';
import { nameSchema, timestampSchema } from './common.ts';

/** Every provider a broker can run; `scripted` replays a given script and is labelled as such. */
export const MODEL_PROVIDERS = ['anthropic', 'openai', 'openai-compatible', 'scripted'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** The providers that take credentials (`scripted` needs none: nothing leaves the process). */
export const CREDENTIAL_PROVIDERS = [
  'anthropic',
  'openai',
  'openai-compatible',
] as const satisfies readonly ModelProvider[];

export const modelProviderSchema = z.enum(MODEL_PROVIDERS);
export const credentialProviderSchema = z.enum(CREDENTIAL_PROVIDERS);

/** A provider's model id as the provider spells it (`claude-sonnet-4-5`, `gpt-5`, `llama3.2`). */
export const modelIdSchema = z.string().min(1).max(200);

const modelRefShape = { provider: modelProviderSchema, model: modelIdSchema };

/** The model a node, run or call uses. */
export const modelRefSchema = z.object(modelRefShape);
export type ModelRef = z.output<typeof modelRefSchema>;

/** The same in a request body (strict). */
export const modelRefBodySchema = z.strictObject(modelRefShape);

export const SCRIPT_MAX_TURNS = 1000;
/**
 * A scripted turn's longest `delay_ms`: a second, about a real model's time to first token.
 * Longer, a one-shot `llm.create` would hold its request past what a client takes for a hang.
 */
export const SCRIPT_MAX_DELAY_MS = 1_000;

/**
 * One turn a `scripted` model plays: text, tool calls, or both (the daemon's broker reads this
 * shape, `ScriptedTurn`). Usage is what the turn reports; zero when omitted.
 */
export const scriptedTurnSchema = z
  .strictObject({
    text: z.string().max(100_000).optional(),
    tool_calls: z
      .array(
        z.strictObject({
          name: z.string().min(1).max(200),
          input: z.unknown().optional().describe('the tool input; {} when omitted'),
        }),
      )
      .max(64)
      .optional(),
    usage: z
      .strictObject({
        input_tokens: z.number().int().nonnegative(),
        output_tokens: z.number().int().nonnegative(),
      })
      .optional(),
    delay_ms: z
      .number()
      .int()
      .min(0)
      .max(SCRIPT_MAX_DELAY_MS)
      .optional()
      .describe(
        "how long the turn takes before its first part, as a remote model's time to first token; 0 when omitted",
      ),
  })
  .refine((t) => (t.text ?? '') !== '' || (t.tool_calls?.length ?? 0) > 0, {
    message: 'a scripted turn needs text or at least one tool call',
  });

/**
 * A model chosen in a request: a provider and model, plus for `scripted` the turns it replays.
 * A script with any other provider is refused, so a real model is never silently replaced.
 */
export const modelChoiceSchema = z
  .strictObject({
    provider: modelProviderSchema,
    model: modelIdSchema,
    script: z
      .array(scriptedTurnSchema)
      .min(1)
      .max(SCRIPT_MAX_TURNS)
      .optional()
      .describe("the turns a 'scripted' model replays; only with provider 'scripted'"),
  })
  .refine((m) => m.script === undefined || m.provider === 'scripted', {
    message: "'script' is only accepted with provider 'scripted'",
    path: ['script'],
  });
export type ModelChoice = z.output<typeof modelChoiceSchema>;

/** `models.credentials.install`: the only body that carries credential material. */
/** The longest API key taken (the CLI checks it before sending). */
export const API_KEY_MAX_LENGTH = 4096;

export const credentialInstallBodySchema = z.strictObject({
  api_key: z
    .string()
    .min(1)
    .max(API_KEY_MAX_LENGTH)
    // It travels in a request header, which holds no control character (RFC 9110 §5.5).
    .regex(/^[\x21-\x7e]+$/, 'an API key is visible ASCII, without whitespace')
    .optional()
    .describe('required for anthropic and openai; optional for openai-compatible'),
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    // Answered in lists and events, so it must hold no secret; nor could it work with one:
    // fetch refuses a URL with credentials, and paths are appended to it, after any query.
    .refine(plainBase, 'a base URL holds no credentials (user:password@), query or fragment')
    .optional()
    .describe(
      'the API root including its version segment, e.g. http://127.0.0.1:11434/v1; required for openai-compatible',
    ),
});
export type CredentialInstallBody = z.output<typeof credentialInstallBodySchema>;

export const credentialParamsSchema = z.object({ provider: credentialProviderSchema });

function plainBase(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return true; // not a URL at all: the url check says so
  }
  // A bare `?`, `#` or `@` parses to an empty query, fragment or user, which `URL` does not tell
  // from none; the SDK would then append its paths after the `?`. The text tells.
  const authority = /^[a-z][a-z\d+.-]*:\/\/([^/?#]*)/i.exec(value)?.[1] ?? '';
  return (
    url.username === '' &&
    url.password === '' &&
    !authority.includes('@') &&
    !value.includes('?') &&
    !value.includes('#')
  );
}

/** A stored credential as answered: whether a key is held, never the key (nor a part of it). */
export const modelCredentialSchema = z.object({
  provider: credentialProviderSchema,
  has_key: z.boolean(),
  base_url: z.string().nullable().describe("null = the provider's public API"),
  created_at: timestampSchema,
  updated_at: timestampSchema,
});
/** A stored credential: `has_key`, never the key nor any part of it. */
export type ModelCredential = z.output<typeof modelCredentialSchema>;

/** `PUT /v1/model-config`: the whole configuration (a PUT replaces it). */
export const modelConfigBodySchema = z.strictObject({
  default: modelRefBodySchema.nullable().describe('null = no default (every node names one)'),
  profiles: z
    .record(nameSchema, modelRefBodySchema)
    .optional()
    .describe('per-profile overrides of the default, by profile name; {} when omitted'),
});
export type ModelConfigBody = z.output<typeof modelConfigBodySchema>;

export const modelConfigSchema = z.object({
  default: modelRefSchema.nullable(),
  profiles: z.record(z.string(), modelRefSchema),
  updated_at: timestampSchema.nullable().describe('null until first set'),
});
export type ModelConfig = z.output<typeof modelConfigSchema>;

/**
 * `GET /v1/model-auth/readiness`, in full: a superset of `readinessResponseSchema`, so a client of
 * that shape keeps working. `ready` is real: credentials present and, where checked, accepted.
 */
export const modelReadinessResponseSchema = z.object({
  providers: z.array(
    z.object({
      provider: modelProviderSchema,
      ready: z.boolean(),
      reason: z.string().optional().describe('why the provider is not ready'),
      label: z
        .string()
        .describe("e.g. 'Scripted replay (offline, deterministic; not a real model)'"),
      has_credentials: z.boolean(),
      offline: z.boolean().describe('runs with no network at all'),
      checked_at: timestampSchema.nullable().describe('when the credentials were last verified'),
    }),
  ),
  default: modelRefSchema.nullable(),
  default_ready: z.boolean().describe('the default model can be called now'),
});
export type ModelReadiness = z.output<typeof modelReadinessResponseSchema>;
