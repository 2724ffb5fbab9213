/**
 * The broker control plane (`brokerRoutes`, docs/nodes.md "The broker's life"): what a node's own
 * broker records, each change in one transaction with its event, and the directive every answer
 * carries; and the supervisor's hooks. The operations, one a file beside this one, hold the
 * recording rules; this assembles them, with the defaults merged once, into the object the
 * daemon calls.
 *
 * Rules the operations share:
 * - a tool result settles a pending call once; a repeat answers the recorded call;
 * - crashes and non-fatal faults count against a relaunch budget that a new turn resets;
 * - a budget parks the node only when the next turn would go past it (`park.ts`).
 */
import { withDeps } from '../with-deps.ts';
import { claim } from './claim.ts';
import { type BrokerPlaneDeps, DEFAULT_RELAUNCH_BUDGET, type PlaneDeps } from './deps.ts';
import { awaitDirective } from './directive.ts';
import { recordFault } from './fault.ts';
import { supervisorHooks } from './hooks.ts';
import { recordJob } from './jobs.ts';
import { report } from './reports.ts';
import { submit } from './submit.ts';
import { recordToolResult } from './tool-results.ts';
import { recordTurn } from './turns.ts';

export type { Directive } from '@svc/protocol';
export { type BrokerPlaneDeps, DEFAULT_RELAUNCH_BUDGET } from './deps.ts';

export function brokerPlane(made: BrokerPlaneDeps) {
  const deps: PlaneDeps = {
    ...made,
    relaunchBudget: made.relaunchBudget ?? DEFAULT_RELAUNCH_BUDGET,
  };
  return {
    hooks: supervisorHooks(deps),
    claim: withDeps(deps, claim),
    recordTurn: withDeps(deps, recordTurn),
    recordToolResult: withDeps(deps, recordToolResult),
    recordFault: withDeps(deps, recordFault),
    submit: withDeps(deps, submit),
    report: withDeps(deps, report),
    recordJob: withDeps(deps, recordJob),
    directive: withDeps(deps, awaitDirective),
  };
}

export type BrokerPlane = ReturnType<typeof brokerPlane>;
