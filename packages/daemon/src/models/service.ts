import type {
  ModelConfigBody as ConfigBody,
  CredentialInstallBody as InstallBody,
  ModelChoice,
  ModelConfig as ModelConfigDto,
  ModelCredential,
  ModelReadiness,
  ModelRef,
} from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { ModelErrorCode } from '../model-access/model-error.ts';
import {
  type ModelConfig,
  PROVIDERS,
  type ProviderId,
  type ScriptedTurn,
} from '../model-access/providers/index.ts';
import type { EventLog } from '../services/events.ts';
import type { Store } from '../store/index.ts';
import type { CredentialProvider, CredentialRow } from './store.ts';

/** A model as a request names it: a provider and model, plus a script for `scripted`. */
export type { ModelChoice, ModelConfigDto, ModelCredential, ModelReadiness, ModelRef };

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

/**
 * Model credentials, the model configuration and readiness: the daemon's only holder of provider
 * keys. A key is written once (`installCredential`) and read back only by `connection`, which
 * hands it to a model call or a broker launch; no answer, event or error carries it.
 */
export function modelService(store: Store, events: EventLog) {
  function config(): ModelConfigDto {
    const row = store.models.config();
    if (row === undefined) return { default: null, profiles: {}, updated_at: null };
    return {
      default: row.default_model === null ? null : (JSON.parse(row.default_model) as ModelRef),
      profiles: JSON.parse(row.profiles) as Record<string, ModelRef>,
      updated_at: row.updated_at,
    };
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

  function readinessOf(provider: ProviderId) {
    const info = PROVIDERS.find((p) => p.id === provider)!;
    const row = provider === 'scripted' ? undefined : store.models.credential(provider);
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

  /**
   * Refuses a model that cannot run as things stand, naming the fix: a `scripted` model without
   * turns (400 `invalid_request`), a provider without its credentials (409 `invalid_state`). A
   * stored key a provider refused last time is not refused here: the key may work again.
   */
  function requireReady(choice: Pick<ModelChoice, 'provider' | 'script'>): void {
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
    const problem = missing(provider, store.models.credential(provider));
    if (problem !== null) {
      throw new ApiError('invalid_state', `${provider} is not ready: ${problem}`, {
        field: 'model.provider',
        received: provider,
      });
    }
  }

  return {
    listCredentials(): ModelCredential[] {
      return store.models.credentials().map(toCredential);
    },

    /** Stores or replaces a provider's credentials (the one way a key enters the daemon). */
    installCredential(provider: CredentialProvider, body: InstallBody): ModelCredential {
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
    },

    removeCredential(provider: CredentialProvider): void {
      store.db.transaction(() => {
        if (!store.models.removeCredential(provider)) {
          throw new ApiError('not_found', `no credentials are installed for ${provider}`, {
            field: 'provider',
          });
        }
        events.record('model_auth.removed', provider, { provider });
      });
    },

    config,

    updateConfig(body: ConfigBody): ModelConfigDto {
      return store.db.transaction(() => {
        store.models.setConfig({
          default_model: body.default === null ? null : JSON.stringify(body.default),
          profiles: JSON.stringify(body.profiles ?? {}),
          updated_at: new Date().toISOString(),
        });
        const dto = config();
        events.record('model_config.updated', null, dto);
        return dto;
      });
    },

    /** `GET /v1/model-auth/readiness`: every provider, in `PROVIDERS` order. */
    readiness(): ModelReadiness {
      const providers = PROVIDERS.map((p) => readinessOf(p.id));
      const { default: chosen } = config();
      return {
        providers,
        default: chosen,
        default_ready:
          chosen !== null && providers.some((p) => p.provider === chosen.provider && p.ready),
      };
    },

    /**
     * The model a node or call uses: the request's, then the owner's override for the profile,
     * then the profile's own, then the configured default; `null` when none is set.
     */
    choose(
      requested: ModelChoice | undefined,
      profile: { name: string; model: ModelChoice | null } | undefined,
    ): ModelChoice | null {
      const { default: fallback, profiles } = config();
      return (
        requested ??
        (profile === undefined ? undefined : profiles[profile.name]) ??
        profile?.model ??
        fallback
      );
    },

    /**
     * Everything `createLanguageModel` needs for `choice`, stored credentials included: for a
     * model call in this process or a broker's launch message, nowhere else. A provider without
     * what it needs is 409 `invalid_state` with the command that fixes it.
     */
    connection(choice: ModelChoice): ModelConfig {
      requireReady(choice);
      const { provider, model } = choice;
      if (provider === 'scripted') {
        // zod's output marks omitted fields `| undefined`; the turns are the same objects.
        return { provider, model, script: choice.script as ScriptedTurn[] };
      }
      const row = store.models.credential(provider);
      return {
        provider,
        model,
        ...(row?.api_key != null && { apiKey: row.api_key }),
        ...(row?.base_url != null && { baseUrl: row.base_url }),
      };
    },

    requireReady,

    /**
     * Records what a call with `provider`'s stored credentials showed: accepted (`code`
     * undefined), or refused. Only answers that say something about the credentials count: a
     * refused key, or an `openai-compatible` server that did not answer.
     */
    recordCall(provider: ProviderId, code?: ModelErrorCode, message?: string): void {
      if (provider === 'scripted') return;
      const telling =
        code === undefined ||
        code === 'auth' ||
        (code === 'network' && provider === 'openai-compatible');
      if (!telling) return;
      store.models.recordCheck(
        provider,
        new Date().toISOString(),
        code === undefined ? null : (message ?? code),
      );
    },
  };
}

export type ModelService = ReturnType<typeof modelService>;

function toCredential(row: CredentialRow): ModelCredential {
  return {
    provider: row.provider,
    has_key: row.api_key !== null,
    base_url: row.base_url,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
