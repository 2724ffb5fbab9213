import type {
  CredentialInstallBody,
  ModelConfig,
  ModelConfigBody,
  ModelCredential,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { name, pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Transport } from '../core/transport.ts';

/** `{ api_key?, base_url? }`: the only request body that carries a key. */
export type CredentialInstallParams = CredentialInstallBody;
/** `{ default, profiles? }`: replaces the whole configuration. */
export type ModelConfigUpdateParams = ModelConfigBody;

export type ModelCredentialList = ListPage<ModelCredential>;

/** `anthropic`, `openai` or `openai-compatible` (`scripted` takes no credentials). */
export type CredentialProvider = ModelCredential['provider'];

export class Credentials extends APIResource {
  /** Stored credentials, owner only (GET /v1/model-auth). */
  list(options?: RequestOptions): PagePromise<ModelCredentialList> {
    return this._transport.list(pathOf('models.credentials.list'), {}, options);
  }

  /** Stores or replaces a provider's key and base URL, owner only (POST /v1/model-auth/{provider}). */
  install(
    provider: CredentialProvider,
    params: CredentialInstallParams,
    options?: RequestOptions,
  ): APIPromise<ModelCredential> {
    const url = pathOf('models.credentials.install', {
      provider: name('provider', provider, 'provider'),
    });
    return this._transport.request('POST', url, { body: params }, options);
  }

  /** Forgets a provider's credentials (DELETE /v1/model-auth/{provider}). */
  remove(provider: CredentialProvider, options?: RequestOptions): APIPromise<{ ok: true }> {
    const url = pathOf('models.credentials.remove', {
      provider: name('provider', provider, 'provider'),
    });
    return this._transport.request('DELETE', url, {}, options);
  }
}

export class Config extends APIResource {
  /** The default model and the per-profile overrides (GET /v1/model-config). */
  retrieve(options?: RequestOptions): APIPromise<ModelConfig> {
    return this._transport.request('GET', pathOf('models.config.retrieve'), {}, options);
  }

  /** Replaces the default model and the overrides, owner only (PUT /v1/model-config). */
  update(params: ModelConfigUpdateParams, options?: RequestOptions): APIPromise<ModelConfig> {
    return this._transport.request(
      'PUT',
      pathOf('models.config.update'),
      { body: params },
      options,
    );
  }
}

/** `client.models`: provider credentials and the model configuration. */
export class Models extends APIResource {
  readonly credentials: Credentials;
  readonly config: Config;

  constructor(transport: Transport) {
    super(transport);
    this.credentials = new Credentials(transport);
    this.config = new Config(transport);
  }
}
