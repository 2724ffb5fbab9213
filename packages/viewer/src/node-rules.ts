/**
 * Which of the viewer's buttons a node's state allows: the protocol's state machine
 * (packages/protocol/src/nodes/state-machine.ts) for the actions the viewer offers, copied as
 * data so the bundle carries no schema code. A button the state does not allow is not shown;
 * the daemon's 409 `invalid_state` still answers a race (the state moved since the page loaded).
 */
export type NodeAction = 'message' | 'interrupt' | 'cancel' | 'revive' | 'fork' | 'budgets';

const FROM: Readonly<Record<NodeAction, readonly string[]>> = {
  message: ['queued', 'running', 'waiting'],
  interrupt: ['queued', 'running'],
  cancel: ['queued', 'running', 'waiting'],
  revive: ['failed', 'cancelled'],
  fork: ['queued', 'running', 'waiting', 'done', 'failed', 'cancelled'],
  // Budgets matter while the node can still take a turn (raising one wakes a parked node).
  budgets: ['queued', 'running', 'waiting'],
};

export function allows(state: string, action: NodeAction): boolean {
  return FROM[action].includes(state);
}

export const FINAL = new Set(['done', 'failed', 'cancelled']);

/**
 * The scopes a node the viewer starts gets unless the person says otherwise: models only. The
 * daemon refuses `svc:act` (bash and files) from a viewer session (docs/security.md).
 */
export const DEFAULT_SCOPES = 'svc:llm';

/** A comma- or space-separated scope list as the daemon takes it. */
export function scopeList(text: string): string[] {
  return text.split(/[\s,]+/).filter((s) => s !== '');
}
