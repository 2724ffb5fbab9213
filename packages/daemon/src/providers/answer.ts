import { ApiError } from '../errors.ts';
import { MAX_ANSWER_BYTES, type PluginAnswer } from '../plugins/call.ts';
import type { ProviderCallAnswer, ProviderRefusal } from './types.ts';

/**
 * The plugin statuses whose error envelope is the caller's to read: what it sent was refused
 * (bad input, not allowed, not found, a state, too large, rate limited). A 401 is not among
 * them: it refuses the credentials the daemon sent, which the caller's own token cannot mend.
 */
const PASSED_THROUGH = new Set([400, 403, 404, 409, 413, 422, 429]);

/**
 * The rule of docs/api-v1.md, "Providers": a result is the answer; a plugin's refusal with a
 * status in `PASSED_THROUGH` and a well-formed envelope is passed on as it is; every other
 * failure of the plugin is a 502 `provider_error`, never a 500 (the daemon did not fail).
 */
export function answerOf(
  answer: PluginAnswer,
  called: { provider: string; group: string; command: string },
): ProviderCallAnswer {
  const { provider } = called;
  switch (answer.kind) {
    case 'no_token':
      throw new ApiError('invalid_state', answer.message, { field: 'profile' });
    case 'no_directory_token':
      // The directory's own refusal (its TCP listener off, a damaged key) says what to fix.
      throw answer.cause;
    case 'failed':
      throw new ApiError('provider_error', answer.message);
    case 'refused': {
      const error = envelopeOf(answer.body);
      if (error !== null && PASSED_THROUGH.has(answer.status)) {
        return { ok: false, refusal: { status: answer.status, error } };
      }
      const why =
        answer.status === 401
          ? ': it refused the credentials the daemon sent (a shared token: set it again in the profile env store; directory auth: its audience must be the endpoint as installed)'
          : error === null
            ? ' without an error envelope'
            : `: ${error.message}`;
      throw new ApiError('provider_error', `plugin ${provider} answered ${answer.status}${why}`, {
        received: { status: answer.status, body: answer.body },
      });
    }
    case 'cut':
      throw new ApiError(
        'provider_error',
        `plugin ${provider} answered more than ${MAX_ANSWER_BYTES} bytes`,
      );
    case 'result':
      if (!answer.json) {
        throw new ApiError('provider_error', `plugin ${provider} answered no JSON`);
      }
      return { ok: true, result: { ...called, output: answer.value } };
    case 'stream': {
      const { items, end } = answer;
      if (end.kind === 'error') {
        throw new ApiError('provider_error', `plugin ${provider}'s stream failed midway`, {
          received: end.body,
        });
      }
      if (end.kind === 'broken' && items.length === 0) {
        throw new ApiError('provider_error', `plugin ${provider}'s stream: ${end.reason}`);
      }
      return {
        ok: true,
        result: { ...called, output: null, items, truncated: end.kind !== 'done' },
      };
    }
  }
}

/** The plugin's `{error: {code, message, field?, received?}}`, else `null`. */
function envelopeOf(body: unknown): ProviderRefusal['error'] | null {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error) || typeof error.code !== 'string' || typeof error.message !== 'string') {
    return null;
  }
  return {
    code: error.code,
    message: error.message,
    ...(typeof error.field === 'string' && { field: error.field }),
    ...('received' in error && { received: error.received }),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
