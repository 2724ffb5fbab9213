/**
 * The ground floor's ports: the small shared types by which the daemon's parts speak to one
 * another. Every floor may import this module; it imports nothing of the daemon's but the store's
 * row types, so no import runs back up through it.
 */
import type { brokerLaunchSchema } from '@svc/protocol';
import type { z } from 'zod';
import type { NodeRow } from './nodes/store/nodes.ts';

/** What a broker's launch message carries (`brokerLaunchSchema`, as the supervisor writes it). */
export type BrokerLaunch = z.input<typeof brokerLaunchSchema>;

/** What a bearer token is: the person's, an app's, or one broker process's. */
export type TokenKind = 'owner' | 'app' | 'node';

/** Who a request acts for, once its bearer is verified. */
export interface Principal {
  tokenId: string;
  /** `publish`: a custom object's publish token; `tokenId` is then the object's id. */
  kind: TokenKind | 'publish';
  appId: string | null;
  /** A node token's node: the only node whose broker routes it may call. */
  nodeId: string | null;
  /** `null` = everything (the owner). */
  scopes: string[] | null;
  expiresAt: string | null;
}

/** Where the on-demand TCP listener listens, once enabled. */
export interface TcpInfo {
  host: string;
  port: number;
  base_url: string;
}

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

/** A node's plugin env and sandbox plan, as its launch has them and a profile change remakes. */
export type NodeConfinement = Pick<BrokerLaunch, 'env' | 'sandbox'>;

/** What the supervisor asks of the nodes' record (implemented by the broker plane service). */
export interface SupervisorHooks {
  /** The model (with its key) and profile env of `node`'s launch; throws when it cannot run. */
  launchOf(node: NodeRow): Pick<BrokerLaunch, 'model' | 'env' | 'sandbox'>;
  /** What of `node`'s launch its profile and the sandbox settings make: its env and its plan. */
  confinementOf(node: NodeRow): NodeConfinement;
  /**
   * The node cannot be launched: a fatal fault, `code` saying what failed (default
   * `model_not_ready`; `worktree_failed` when git could not make its worktree).
   */
  unlaunchable(nodeId: string, error: unknown, code?: string): void;
  /** Its broker died while it ran (or before claiming it): count it; relaunch or fail. */
  crashed(nodeId: string, message: string): void;
  /** The daemon stopped while it ran: relaunch, not counted against the node. */
  lost(nodeId: string): void;
  /**
   * Its broker was stopped on purpose (cancel, interrupt, relaunch): the tool calls it left
   * pending were cut short, and are settled as such so that no later broker runs them again.
   */
  stopped(nodeId: string): void;
  /** Its broker is gone, however it went: the jobs it ran went with it (and its processes). */
  ended(nodeId: string): void;
}

/**
 * The viewer's sessions as the request path checks them (a cookie's session is live, its page
 * key matches); the viewer resource keeps them.
 */
export interface ViewerSessions {
  /** Whether `secret` names a live session (known, not revoked, not expired). */
  isLive(secret: string): boolean;
  /** Whether `key` is the page key of the session `secret`. */
  keyMatches(secret: string, key: string): boolean;
}

/** Runs a callback once the caller's transaction commits (`store.db.transaction`'s argument). */
export type AfterCommit = (cb: () => void) => void;

/**
 * The `submit` tool's own result, and why the calls after it in its turn are not run: written by
 * the broker's tool and by the daemon when it records a submission in the broker's stead.
 */
export const SUBMITTED = { submitted: true } as const;
export const SUBMITTED_REASON = 'the node submitted its result';
