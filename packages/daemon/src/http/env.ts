/** Which listener a request arrived on; the TCP one carries the Host allow-list and CORS. */
export type Listener = { kind: 'unix' } | { kind: 'tcp'; host: string; port: number };

/** Validated request parts, set by the route guard before a handler runs. */
export interface RouteInput {
  params: unknown;
  query: unknown;
  body: unknown;
  /** The body bytes as received (the Idempotency-Key fingerprint hashes them). */
  raw: Uint8Array;
}
