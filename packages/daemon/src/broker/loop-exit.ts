/** How and why `runAgentLoop` ended; the broker process exits after reporting it. */
export interface LoopExit {
  kind: LoopExitKind;
  /** Human-readable: shown to the person as the node's state reason. */
  reason: string;
}

export type LoopExitKind =
  /** The node submitted its result: it is `done`. */
  | 'submitted'
  /** The node yielded: parked until mail arrives. */
  | 'yielded'
  /** Parked for mail (the model ended its turn without a result) or for children. */
  | 'waiting'
  /** A budget is used up: parked until the budget is raised. */
  | 'budget'
  /** A fault was recorded (model error past its retries, or a broken control plane). */
  | 'failed'
  /** Cancel, interrupt or shutdown aborted the loop: nothing runs any more. */
  | 'aborted';
