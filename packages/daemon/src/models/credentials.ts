import { ApiError } from '../errors.ts';
import type { CredentialProvider, CredentialRow } from './store.ts';
import type { InstallBody, ModelCredential, ModelDeps } from './types.ts';

/**
 * The providers' credentials as answers show them: whether a key is there, never the key. A key
 * is written once (`installCredential`) and read back only by `connection`, which hands it to a
 * model call or a broker launch.
 */
export function listCredentials(deps: Pick<ModelDeps, 'store'>): ModelCredential[] {
  return deps.store.models.credentials().map(toCredential);
}

/** Stores or replaces a provider's credentials (the one way a key enters the daemon). */
export function installCredential(
  deps: ModelDeps,
  provider: CredentialProvider,
  body: InstallBody,
): ModelCredential {
  const { store, events } = deps;
  if (provider !== 'openai-compatible' && body.api_key === undefined) {
    throw new ApiError('invalid_request', `${provider} needs an api_key`, {
      field: 'api_key',
    });
  }
  if (provider === 'openai-compatible' && body.base_url === undefined) {
    throw new ApiError(
      'invalid_request',
      'openai-compatible needs a base_url, the API root with its version segment (e.g. http://127.0.0.1:11434/v1)',
      { field: 'base_url' },
    );
  }
  return store.db.transaction(() => {
    store.models.upsertCredential({
      provider,
      api_key: body.api_key ?? null,
      base_url: body.base_url ?? null,
      at: new Date().toISOString(),
    });
    const dto = toCredential(store.models.credential(provider)!);
    events.record('model_auth.installed', provider, dto);
    return dto;
  });
}

export function removeCredential(deps: ModelDeps, provider: CredentialProvider): void {
  const { store, events } = deps;
  store.db.transaction(() => {
    if (!store.models.removeCredential(provider)) {
      throw new ApiError('not_found', `no credentials are installed for ${provider}`, {
        field: 'provider',
      });
    }
    events.record('model_auth.removed', provider, { provider });
  });
}

function toCredential(row: CredentialRow): ModelCredential {
  return {
    provider: row.provider,
    has_key: row.api_key !== null,
    base_url: row.base_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
