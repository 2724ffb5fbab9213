import type {
  listOf,
  listQuerySchema,
  profileEnsureBodySchema,
  profileSchema,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { envName, name, path } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import type { Transport } from '../core/transport.ts';
import type { Output } from '../internal/types.ts';

/** A profile; `env` lists names only, never values. */
export type Profile = Output<typeof profileSchema>;
/** The fields to set; `null` resets one to its default, an omitted one is kept. */
export type ProfileEnsureParams = Output<typeof profileEnsureBodySchema>;

export type ProfileList = Output<ReturnType<typeof listOf<typeof profileSchema>>>;
/** `{ limit?, after? }`: `after` is the previous page's `next_cursor`. */
export type ProfileListParams = Output<typeof listQuerySchema>;

const profile = (value: unknown) => name('profile', value, 'name');

export class ProfileEnv extends APIResource {
  /** Stores a value for the profile's brokers, owner only; the answer never carries it. */
  set(
    profileName: string,
    variable: string,
    value: string,
    options?: RequestOptions,
  ): APIPromise<Profile> {
    if (typeof value !== 'string') {
      throw new TypeError(`value must be a string; received ${typeof value}`);
    }
    const url = path`/v1/profiles/${profile(profileName)}/env/${envName(variable, 'variable')}`;
    return this._transport.request('PUT', url, { body: { value } }, options);
  }

  /** Removes a value from the profile's env store, owner only. */
  delete(profileName: string, variable: string, options?: RequestOptions): APIPromise<Profile> {
    const url = path`/v1/profiles/${profile(profileName)}/env/${envName(variable, 'variable')}`;
    return this._transport.request('DELETE', url, {}, options);
  }
}

/** `client.profiles`: named agent configurations. */
export class Profiles extends APIResource {
  readonly env: ProfileEnv;

  constructor(transport: Transport) {
    super(transport);
    this.env = new ProfileEnv(transport);
  }

  /** Creates the profile or sets the fields given (PUT /v1/profiles/{name}); repeatable. */
  ensure(
    profileName: string,
    params: ProfileEnsureParams = {},
    options?: RequestOptions,
  ): APIPromise<Profile> {
    return this._transport.request(
      'PUT',
      path`/v1/profiles/${profile(profileName)}`,
      { body: params },
      options,
    );
  }

  /** One profile (GET /v1/profiles/{name}). */
  retrieve(profileName: string, options?: RequestOptions): APIPromise<Profile> {
    return this._transport.request('GET', path`/v1/profiles/${profile(profileName)}`, {}, options);
  }

  /** The profiles the caller may use, by name (GET /v1/profiles). */
  list(params: ProfileListParams = {}, options?: RequestOptions): APIPromise<ProfileList> {
    return this._transport.request('GET', '/v1/profiles', { query: { ...params } }, options);
  }
}
