import type { llmBodySchema, llmResponseSchema } from '@svc/protocol';
import { defaultSettingsMiddleware, type ModelMessage, wrapLanguageModel } from 'ai';
import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { ModelError, type ModelErrorCode } from '../model-access/model-error.ts';
import { runModelTurn } from '../model-access/model-turn.ts';
import { createLanguageModel, type LanguageModelV4 } from '../model-access/providers/index.ts';
import { refusedCredentials } from '../models/readiness.ts';
import type { ModelService } from '../models/service.ts';
import { compileUsable } from '../nodes/output-schema.ts';
import type { Principal } from '../ports.ts';
import type { ProfileService } from '../profiles/service.ts';
import { redactSecrets } from '../redact.ts';
import { screenPatterns } from '../schema-check/pattern-safety.ts';

type LlmBody = z.output<typeof llmBodySchema>;

/** What a model call uses: the models (their keys) and the profiles (their model, prompt). */
export interface LlmDeps {
  models: Pick<ModelService, 'choose' | 'connection' | 'recordCall'>;
  profiles: Pick<ProfileService, 'settings'>;
}
export type LlmResponse = z.output<typeof llmResponseSchema>;

/** How a model failure is answered: the caller's fault, the credentials', or try again later. */
const ERROR_CODES: Readonly<Record<ModelErrorCode, ApiError['code']>> = {
  auth: 'invalid_state',
  rate_limit: 'rate_limited',
  overloaded: 'not_ready',
  network: 'not_ready',
  bad_request: 'invalid_request',
  aborted: 'not_ready',
  script_exhausted: 'invalid_request',
};

/**
 * `POST /v1/llm`: one model call made here, with the daemon's stored credentials, so an app never
 * holds a provider key. The same `runModelTurn` as a broker's turns, with no tools.
 */
export async function createLlmCall(
  deps: LlmDeps,
  body: LlmBody,
  principal: Principal,
  signal: AbortSignal,
): Promise<LlmResponse> {
  const { models, profiles } = deps;
  await screenPatterns(body.output_schema, 'output_schema');
  const profile =
    body.profile === undefined ? undefined : profiles.settings(body.profile, principal, 'profile');
  const choice = models.choose(body.model, profile);
  if (choice === null) {
    throw new ApiError(
      'invalid_request',
      'no model: name one in model, use a profile that has one, or set a default with PUT /v1/model-config',
      { field: 'model' },
    );
  }
  const check = body.output_schema === undefined ? undefined : compile(body.output_schema);
  const connection = models.connection(choice);
  const model = withSettings(createLanguageModel(connection), body);
  const system = joinSystem(
    body.system ?? profile?.system_prompt ?? undefined,
    body.output_schema === undefined
      ? undefined
      : `Answer with one JSON value and nothing else. It must match this JSON Schema:\n${JSON.stringify(body.output_schema)}`,
  );
  const messages: ModelMessage[] = body.messages.map((m) => ({
    role: m.role,
    content: m.content,
  }));

  let turn: Awaited<ReturnType<typeof runModelTurn>>;
  try {
    turn = await runModelTurn({
      model,
      ...(system !== undefined && { system }),
      messages,
      tools: {},
      signal,
    });
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    // Neither the stored check nor the answer may carry the key, even if a provider echoes it.
    const message = redactSecrets(error.message, [connection.apiKey]);
    models.recordCall(connection.provider, error.code, message);
    const said =
      error.code === 'auth'
        ? refusedCredentials(connection.provider, message)
        : `${choice.provider}: ${message}`;
    throw new ApiError(ERROR_CODES[error.code], said, {
      field: error.code === 'script_exhausted' ? 'model.script' : 'model',
    });
  }
  models.recordCall(connection.provider);
  return {
    model: { provider: choice.provider, model: choice.model },
    text: turn.text,
    parsed: check === undefined ? null : check(turn.text),
    usage: turn.usage,
    cost_usd: turn.cost_usd,
    finish_reason: turn.finish_reason,
  };
}

function withSettings(model: LanguageModelV4, body: LlmBody): LanguageModelV4 {
  const settings = {
    ...(body.max_output_tokens !== undefined && { maxOutputTokens: body.max_output_tokens }),
    ...(body.temperature !== undefined && { temperature: body.temperature }),
  };
  if (Object.keys(settings).length === 0) return model;
  return wrapLanguageModel({ model, middleware: defaultSettingsMiddleware({ settings }) });
}

function joinSystem(...parts: (string | undefined)[]): string | undefined {
  const given = parts.filter((p): p is string => p !== undefined && p !== '');
  return given.length === 0 ? undefined : given.join('\n\n');
}

/**
 * The check of an answer against `output_schema` (draft 2020-12): the answer's JSON, parsed, or
 * 422 `validation_failed` saying where it differs. A Markdown code fence around it is tolerated.
 */
function compile(schema: Record<string, unknown>): (text: string) => unknown {
  const check = compileUsable(schema);
  return (text) => {
    const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
    let value: unknown;
    try {
      value = JSON.parse(fenced?.[1] ?? text);
    } catch {
      throw new ApiError('validation_failed', 'the model did not answer with JSON', {
        field: 'output_schema',
      });
    }
    const failure = check(value);
    if (failure !== null) {
      throw new ApiError(
        'validation_failed',
        `the model's answer does not match output_schema at ${failure.pointer || '/'}: ${failure.reason}`,
        { field: 'output_schema' },
      );
    }
    return value;
  };
}
