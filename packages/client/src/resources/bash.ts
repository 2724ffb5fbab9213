import {
  BASH_DEFAULT_TIMEOUT_MS,
  BASH_TIMEOUT_MAX_MS,
  type BashBody,
  type BashResult,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import { pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';
import { ANSWER_GRACE_MS, show } from '../internal/options.ts';

/** `{ command, cwd, timeout_ms?, env? }`; `cwd` is absolute on the daemon's host (it checks). */
export type BashRunParams = BashBody;

export class Bash extends APIResource {
  /** Runs one command (POST /v1/bash). A non-zero exit is a value, not an error. */
  run(params: BashRunParams, options?: RequestOptions): APIPromise<BashResult> {
    for (const key of ['command', 'cwd'] as const) {
      if (typeof params?.[key] !== 'string') {
        throw new TypeError(`params.${key} must be a string; received ${show(params?.[key])}`);
      }
    }
    // Past the command's own bound, so a long command is not cut by the client's default. A
    // bound the daemon refuses (422) leaves the default in place for that answer.
    const bound = params.timeout_ms;
    const usable =
      typeof bound === 'number' &&
      Number.isInteger(bound) &&
      bound > 0 &&
      bound <= BASH_TIMEOUT_MAX_MS;
    const timeout = (usable ? bound : BASH_DEFAULT_TIMEOUT_MS) + ANSWER_GRACE_MS;
    return this._transport.request(
      'POST',
      pathOf('bash.run'),
      { body: params },
      { timeout, ...options },
    );
  }
}
