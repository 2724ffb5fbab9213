import type { RawResponse } from './transport.ts';

/**
 * The promise every request method returns: it resolves to the parsed JSON body, and also
 * offers the raw `Response` (`asResponse`) or both together with the request id
 * (`withResponse`), without a second request.
 */
export class APIPromise<T> extends Promise<T> {
  readonly #raw: Promise<RawResponse>;
  readonly #parse: (raw: RawResponse) => Promise<T>;
  #parsed: Promise<T> | undefined;

  constructor(raw: Promise<RawResponse>, parse: (raw: RawResponse) => Promise<T>) {
    // The base promise is never used: then/catch/finally below read the response lazily, so
    // `asResponse()` can hand over an unread body.
    super((resolve) => resolve(null as T));
    this.#raw = raw;
    this.#parse = parse;
  }

  /**
   * The raw `Response`, body unread (no timeout applies to reading it; the call's `signal`
   * still does). Error statuses still throw the mapped `APIError`.
   */
  asResponse(): Promise<Response> {
    return this.#raw.then((raw) => {
      raw.endTimeout();
      return raw.response;
    });
  }

  /** The parsed body with the `Response` and its `Svc-Request-Id`. */
  async withResponse(): Promise<{ data: T; response: Response; requestId: string | null }> {
    const [data, raw] = await Promise.all([this.#data(), this.#raw]);
    return { data, response: raw.response, requestId: raw.requestId };
  }

  #data(): Promise<T> {
    this.#parsed ??= this.#raw.then(this.#parse);
    return this.#parsed;
  }

  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass that parses lazily.
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#data().then(onfulfilled, onrejected);
  }

  override catch<R = never>(
    onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null,
  ): Promise<T | R> {
    return this.#data().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#data().finally(onfinally);
  }
}
