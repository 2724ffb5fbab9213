import { listCovers, type RouteId } from '@svc/protocol';
import { ApiError } from '../errors.ts';
import type { Call } from './call.ts';

/**
 * What a viewer session may change: the viewer's own buttons, and nothing else, though it acts
 * as the owner. It reads as the owner (its files reads fenced from `SVC_HOME` as well,
 * files/routes.ts), but makes no token, login link or publish token (a session that could would
 * renew itself past its 12 h or outlive its logout) and runs no command: a script that ever ran
 * in the page could then do no more than the page's own buttons. The person's CLI holds the
 * owner token for the rest. docs/security.md "The viewer" lists the same, in words.
 */
const VIEWER_ACTIONS: ReadonlySet<RouteId> = new Set<RouteId>([
  // The inbox: answer, report progress, decline.
  'human.inbox.respond',
  'human.inbox.progress',
  'human.inbox.cancel',
  // A cron's buttons.
  'crons.run',
  'crons.pause',
  'crons.resume',
  // Steering a node: each acts within the node's own scopes and gives it none.
  'nodes.message',
  'nodes.interrupt',
  'nodes.cancel',
  'nodes.revive',
  'nodes.update',
  // New agents, each without `svc:act` (`VIEWER_INPUT` below).
  'nodes.create',
  'nodes.fork',
  'runs.start',
  'viewer.logout',
]);

/** 403 when a viewer session calls a write route that is none of the viewer's buttons. */
export function refuseForViewer(c: Call): void {
  if (c.viewerSession === null || c.method === 'GET' || c.method === 'HEAD') return;
  if (VIEWER_ACTIONS.has(c.route?.id as RouteId)) return;
  throw new ApiError(
    'forbidden',
    "a viewer session reads, answers the inbox, runs crons and steers or starts nodes without 'svc:act', nothing else; use svc with the owner token",
  );
}

/**
 * `svc:act` gates bash and the file tools (SPEC "Scope vocabulary"), and a node acts with the
 * scopes it is given, the creator's whole ceiling when none are. So a node, run or fork a session
 * starts must name its scopes, without `svc:act`: what the session cannot do, no agent it
 * starts can do for it.
 */
function scopesWithoutAct(body: { scopes?: readonly string[] | undefined }): void {
  if (body.scopes === undefined) {
    throw new ApiError(
      'forbidden',
      "a viewer session names the scopes of a node it starts (the owner's whole list would include 'svc:act')",
      { field: 'scopes' },
    );
  }
  if (listCovers(body.scopes, 'svc:act')) {
    throw new ApiError(
      'forbidden',
      "a node a viewer session starts holds no 'svc:act' (bash and files); start it with svc and the owner token",
      { field: 'scopes', received: body.scopes },
    );
  }
}

/** What a session may change of a node: its budgets (raising one wakes a node parked at it). */
const UPDATABLE = new Set(['budgets']);

const VIEWER_INPUT: Partial<Record<RouteId, (body: Record<string, unknown>) => void>> = {
  'nodes.create': scopesWithoutAct,
  'nodes.fork': scopesWithoutAct,
  'runs.start': scopesWithoutAct,
  'nodes.update': (body) => {
    const other = Object.keys(body).find((key) => !UPDATABLE.has(key));
    if (other !== undefined) {
      throw new ApiError('forbidden', "a viewer session changes a node's budgets only", {
        field: other,
      });
    }
  },
};

/**
 * 403 when a viewer session's validated input asks for more than its buttons give; run after
 * the input is read and before the handler, so a refused request changes nothing.
 */
export function refuseViewerInput(c: Call, input: { body?: unknown }): void {
  if (c.viewerSession === null) return;
  const rule = VIEWER_INPUT[c.route?.id as RouteId];
  if (rule !== undefined) rule((input.body ?? {}) as Record<string, unknown>);
}
