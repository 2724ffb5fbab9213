/**
 * What the supervisor holds of a node's broker: a process-like handle with a pid, an exit, a
 * launch and a stop. Each is a lease on an agent host (`./host-lease.ts`), one process running
 * many nodes' loops; the rest of the supervisor sees one broker per node as before.
 */
import type { BrokerLaunch, NodeConfinement } from '../ports.ts';

export interface BrokerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface BrokerProcess {
  /** The process running the node's loop (its agent host, shared with other nodes). */
  pid: number;
  /** Settles when the node's loop has ended, or its process has exited (never rejects). */
  exited: Promise<BrokerExit>;
  /** False once ended: a lease whose host died is not launched. */
  readonly alive: boolean;
  /**
   * Hands the broker its node: the launch message; its log lines from now on are appended to
   * the file open at `log` (a descriptor it takes over, closed when the node ends). Once only.
   */
  launch(message: BrokerLaunch, log: number): void;
  /**
   * Aborts the node's loop, then cuts it off (its commands and sandbox killed, nothing more
   * recorded) once `graceMs` passes (`0`: at once); settles when the node has ended.
   */
  stop(graceMs: number): Promise<BrokerExit>;
  /**
   * The node's env and sandbox plan made again (what they are made from changed): its host
   * closes the node's sandbox, with whatever runs in it, and its next command runs under the new
   * plan. Nothing before its launch (the launch's are made then) or after its end.
   */
  reconfine(parts: NodeConfinement): void;
}
