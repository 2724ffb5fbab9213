import type { ListQuery, Profile, ProfileEnsureBody } from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { name, pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

/** The fields to set; `null` resets one to its default, an omitted one is kept. */
export type ProfileEnsureParams = ProfileEnsureBody;

export type ProfileList = ListPage<Profile>;
/** `{ limit?, after? }`: `after` is the previous page's `next_cursor`. */
export type ProfileListParams = ListQuery;

const profile = (value: unknown) => name('profile', value, 'name');

/**
 * `client.profiles`: named agent configurations. A profile's env store (`PUT`/`DELETE
 * /v1/profiles/{name}/env/{var}`) takes secret values, and SPEC gives credential material one
 * method only (`models.credentials.install`): the store is reached with `client.request`, as
 * `svc profile env` does.
 */
export class Profiles extends APIResource {
  /** Creates the profile or sets the fields given (PUT /v1/profiles/{name}); repeatable. */
  ensure(
    profileName: string,
    params: ProfileEnsureParams = {},
    options?: RequestOptions,
  ): APIPromise<Profile> {
    return this._transport.request(
      'PUT',
      pathOf('profiles.ensure', { name: profile(profileName) }),
      { body: params },
      options,
    );
  }

  /** One profile (GET /v1/profiles/{name}). */
  retrieve(profileName: string, options?: RequestOptions): APIPromise<Profile> {
    return this._transport.request(
      'GET',
      pathOf('profiles.retrieve', { name: profile(profileName) }),
      {},
      options,
    );
  }

  /** The profiles the caller may use, by name (GET /v1/profiles). */
  list(params: ProfileListParams = {}, options?: RequestOptions): PagePromise<ProfileList> {
    return this._transport.list(pathOf('profiles.list'), { ...params }, options);
  }
}
