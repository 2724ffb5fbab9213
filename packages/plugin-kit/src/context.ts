/** The `ctx` a command handler receives. */
import type { Caller, CommandContext } from './types.ts';

/**
 * Its `signal` is built on first read: most handlers never read it, and following the request's
 * own signal costs an `AbortController` and a listener per request (two controllers on adapters
 * that build `request.signal` on demand).
 */
export class HandlerContext implements CommandContext {
  readonly request: Request;
  readonly requestId: string;
  readonly version: number | null;
  declare caller?: Caller;
  #abort: AbortController | undefined;
  #stopped = false;

  constructor(request: Request, requestId: string, version: number | null, caller?: Caller) {
    this.request = request;
    this.requestId = requestId;
    this.version = version;
    if (caller !== undefined) this.caller = caller;
  }

  get signal(): AbortSignal {
    if (this.#abort === undefined) {
      const abort = new AbortController();
      this.#abort = abort;
      const requestSignal = this.request.signal;
      if (this.#stopped) abort.abort();
      else if (requestSignal.aborted) abort.abort(requestSignal.reason);
      else {
        requestSignal.addEventListener('abort', () => abort.abort(requestSignal.reason), {
          once: true,
        });
      }
    }
    return this.#abort.signal;
  }

  /** The client stopped reading the answer's stream: abort the signal, read or yet to be read. */
  stop(): void {
    this.#stopped = true;
    this.#abort?.abort();
  }
}
