/**
 * What the nodes service needs from whoever runs nodes (the supervisor and its brokers): the
 * service changes state in the database, the runtime acts on processes. Kept this small so the
 * service can be tested, and can run, without any broker.
 */
export interface NodeRuntime {
  /** A node became `queued` (created, woken, revived, recycled, relaunched): start it when a slot is free. */
  wake(nodeId: string): void;
  /**
   * The node was cancelled, interrupted or relaunched (its state already changed): stop its
   * broker and every process it started. Resolves once they are gone; a node without a broker
   * resolves at once. After `relaunch` the node is already queued; `wake` follows the stop.
   */
  stop(nodeId: string, reason: 'cancel' | 'interrupt' | 'relaunch'): Promise<void>;
  /**
   * The host-local viewer socket of the node's live broker (`nodes.attach`), once something
   * listens on it; `null` if none.
   */
  viewerSocket?(nodeId: string): Promise<string | null>;
}

/** Used until a supervisor is plugged in: nodes queue and nothing runs them. */
export const idleRuntime: NodeRuntime = Object.freeze({
  wake() {},
  stop: () => Promise.resolve(),
});
