/** Which listener a request arrived on; the TCP one carries the Host allow-list and CORS. */
export type Listener = { kind: 'unix' } | { kind: 'tcp'; host: string; port: number };
