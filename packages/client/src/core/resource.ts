import type { Transport } from './transport.ts';

/** A namespace of the client (`client.system`, `client.bash`, …) over the shared transport. */
export abstract class APIResource {
  protected readonly _transport: Transport;

  constructor(transport: Transport) {
    this._transport = transport;
  }
}
