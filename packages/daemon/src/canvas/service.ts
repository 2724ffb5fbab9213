/**
 * The canvas (docs/api-v1.md "Canvas"): what needs the person (`attention.ts`), the visible
 * nodes at one event seq (`snapshot.ts`), the live agents (`roster.ts`), and pruning trees that
 * ended long ago (`prune.ts`), assembled into the object the routes call. Who sees which node is
 * the nodes resource's rule; each operation says which of its two it takes.
 */

import type { CronService } from '../crons/service.ts';
import type { EventLog } from '../events/log.ts';
import type { Logger } from '../lifecycle/logger.ts';
import type { NodeService } from '../nodes/service.ts';
import type { Principal } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { GitRunner } from '../worktrees/git.ts';
import { type AttentionKind, attention, attentionCounts } from './attention.ts';
import { prune } from './prune.ts';
import { roster } from './roster.ts';
import { snapshot } from './snapshot.ts';

export interface CanvasServiceDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'visibility' | 'readVisibility' | 'readableRow'>;
  crons: Pick<CronService, 'list'>;
  home: string;
  git: GitRunner;
  logger: Pick<Logger, 'warn'>;
}

export function canvasService(deps: CanvasServiceDeps) {
  return {
    attention: (
      principal: Principal,
      q: {
        kinds?: readonly AttentionKind[] | undefined;
        after?: string | undefined;
        limit: number;
      },
    ) => attention(deps, principal, q),
    attentionCounts: (principal: Principal) => attentionCounts(deps, principal),
    snapshot: (principal: Principal, q: Parameters<typeof snapshot>[2]) =>
      snapshot(deps, principal, q),
    roster: (principal: Principal, q: Parameters<typeof roster>[2]) => roster(deps, principal, q),
    prune: (opts: Parameters<typeof prune>[1]) => prune(deps, opts),
  };
}

export type CanvasService = ReturnType<typeof canvasService>;
