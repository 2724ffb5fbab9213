/** What every `svc node` handler shares: the id check and the printed node. */
import type { Node } from '@svc/client';
import type { Context } from '../../context.ts';
import { EXIT } from '../../errors.ts';
import { renderNode } from '../../output/node-view.ts';
import { parseId } from '../../parse/id.ts';

/** A node id, else a usage error naming `what` (default: the `<id>` argument), before any request. */
export function nodeId(value: string, what?: string): string {
  return parseId('node', value, what);
}

/** The node's fields for a person; the Node itself under `--json`. */
export function printNode(ctx: Context, n: Node): number {
  ctx.out.result(n, (colors) => renderNode(n, colors));
  return EXIT.ok;
}
