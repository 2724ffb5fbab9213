import type {
  Cron,
  CronCreateBody,
  CronDeleteResult,
  CronListQuery,
  CronRunResult,
} from '@svc/protocol';
import type { APIPromise } from '../core/api-promise.ts';
import type { PagePromise } from '../core/page-promise.ts';
import type { ListPage } from '../core/pages.ts';
import { id, pathOf } from '../core/path.ts';
import type { RequestOptions } from '../core/request-options.ts';
import { APIResource } from '../core/resource.ts';

export type CronCreateParams = CronCreateBody;
export type CronListParams = CronListQuery;
export type CronList = ListPage<Cron>;

const cron = (value: unknown) => id('cron', value, 'cronId');

/** `client.crons`: schedules that create a root node with a fixed task each time they fire. */
export class Crons extends APIResource {
  /** Creates a cron (POST /v1/crons, `svc:schedule`). */
  create(params: CronCreateParams, options?: RequestOptions): APIPromise<Cron> {
    return this._transport.request('POST', pathOf('crons.create'), { body: params }, options);
  }

  retrieve(cronId: string, options?: RequestOptions): APIPromise<Cron> {
    return this._transport.request(
      'GET',
      pathOf('crons.retrieve', { id: cron(cronId) }),
      {},
      options,
    );
  }

  /** Newest first; an app sees its own crons. */
  list(params: CronListParams = {}, options?: RequestOptions): PagePromise<CronList> {
    return this._transport.list(pathOf('crons.list'), { ...params }, options);
  }

  /** Stops scheduled fires; a paused cron answers unchanged. */
  pause(cronId: string, options?: RequestOptions): APIPromise<Cron> {
    return this._transport.request(
      'POST',
      pathOf('crons.pause', { id: cron(cronId) }),
      {},
      options,
    );
  }

  /** Fires on schedule again, the next time counted from now; an active cron answers unchanged. */
  resume(cronId: string, options?: RequestOptions): APIPromise<Cron> {
    return this._transport.request(
      'POST',
      pathOf('crons.resume', { id: cron(cronId) }),
      {},
      options,
    );
  }

  /** Fires once now, whatever the schedule, even when paused. */
  run(cronId: string, options?: RequestOptions): APIPromise<CronRunResult> {
    return this._transport.request('POST', pathOf('crons.run', { id: cron(cronId) }), {}, options);
  }

  /** Deletes the cron (DELETE /v1/crons/{id}); the nodes it created stay. */
  delete(cronId: string, options?: RequestOptions): APIPromise<CronDeleteResult> {
    return this._transport.request(
      'DELETE',
      pathOf('crons.delete', { id: cron(cronId) }),
      {},
      options,
    );
  }

  /** Re-evaluates now: a time passed unfired gets the missed policy; next_run_at from now. */
  poke(cronId: string, options?: RequestOptions): APIPromise<Cron> {
    return this._transport.request('POST', pathOf('crons.poke', { id: cron(cronId) }), {}, options);
  }
}
