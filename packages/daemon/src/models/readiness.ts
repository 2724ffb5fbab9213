import { ApiError } from '../errors.ts';
import type { ModelErrorCode } from '../model-access/model-error.ts';
import { PROVIDERS, type ProviderId } from '../model-access/providers/index.ts';
import type { CredentialProvider, CredentialRow } from './store.ts';
import type { ModelChoice, ModelDeps, ModelReadiness } from './types.ts';

/** Where to install what a provider lacks, in the words a person types. */
const INSTALL_HINT: Readonly<Record<CredentialProvider, string>> = {
  anthropic: 'svc models install anthropic (the key on stdin)',
  openai: 'svc models install openai (the key on stdin)',
  'openai-compatible': 'svc models install openai-compatible --base-url URL',
};

/**
 * What a provider's refusal of its credentials (a 401 or 403) says: which provider, what it
 * said, and the command that installs working ones.
 */
export function refusedCredentials(provider: ProviderId, said: string): string {
  const hint = provider === 'scripted' ? null : INSTALL_HINT[provider];
  return `${provider} refused the stored credentials (${said})${hint === null ? '' : `; install working ones with: ${hint}`}`;
}

/** Why `provider` cannot be called now, or `null` when it can. */
function missing(provider: ProviderId, row: CredentialRow | undefined): string | null {
  if (provider === 'scripted') return null;
  if (provider === 'openai-compatible') {
    if (row?.base_url == null) return `no base URL is set; run: ${INSTALL_HINT[provider]}`;
  } else if (row?.api_key == null) {
    return `no API key is installed; run: ${INSTALL_HINT[provider]}`;
  }
  return null;
}

function readinessOf(deps: Pick<ModelDeps, 'store'>, provider: ProviderId) {
  const info = PROVIDERS.find((p) => p.id === provider)!;
  const row = provider === 'scripted' ? undefined : deps.store.models.credential(provider);
  const reason =
    missing(provider, row) ??
    (row?.check_error == null
      ? null
      : `the last call at ${row.checked_at} failed: ${row.check_error}; install working credentials with: ${INSTALL_HINT[row.provider]}`);
  return {
    provider,
    ready: reason === null,
    ...(reason !== null && { reason }),
    label: info.label,
    has_credentials:
      provider === 'scripted' || (row !== undefined && missing(provider, row) === null),
    offline: info.offline,
    checked_at: row?.checked_at ?? null,
  };
}

/** `GET /v1/model-auth/readiness`: every provider, in `PROVIDERS` order. */
export function readiness(deps: Pick<ModelDeps, 'store'>): ModelReadiness {
  const providers = PROVIDERS.map((p) => readinessOf(deps, p.id));
  const chosen = deps.store.models.config()?.default_model ?? null;
  return {
    providers,
    default: chosen,
    default_ready:
      chosen !== null && providers.some((p) => p.provider === chosen.provider && p.ready),
  };
}

/**
 * Refuses a model that cannot run as things stand, naming the fix: a `scripted` model without
 * turns (400 `invalid_request`), a provider without its credentials (409 `invalid_state`). A
 * stored key a provider refused last time is not refused here: the key may work again.
 */
export function requireReady(
  deps: Pick<ModelDeps, 'store'>,
  choice: Pick<ModelChoice, 'provider' | 'script'>,
): void {
  const { provider } = choice;
  if (provider === 'scripted') {
    if (choice.script === undefined) {
      throw new ApiError(
        'invalid_request',
        "a 'scripted' model replays the turns given in model.script; none were given: pass them in model.script (svc node create --script FILE, svc profile ensure --script FILE)",
        { field: 'model.script' },
      );
    }
    return;
  }
  const problem = missing(provider, deps.store.models.credential(provider));
  if (problem !== null) {
    throw new ApiError('invalid_state', `${provider} is not ready: ${problem}`, {
      field: 'model.provider',
      received: provider,
    });
  }
}

/**
 * Records what a call with `provider`'s stored credentials showed: accepted (`code`
 * undefined), or refused. Only answers that say something about the credentials count: a
 * refused key, or an `openai-compatible` server that did not answer.
 */
export function recordCall(
  deps: Pick<ModelDeps, 'store'>,
  provider: ProviderId,
  code?: ModelErrorCode,
  message?: string,
): void {
  if (provider === 'scripted') return;
  const telling =
    code === undefined ||
    code === 'auth' ||
    (code === 'network' && provider === 'openai-compatible');
  if (!telling) return;
  deps.store.models.recordCheck(
    provider,
    new Date().toISOString(),
    code === undefined ? null : (message ?? code),
  );
}
