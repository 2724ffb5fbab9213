import type { DaemonContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { type Confinement, runBash } from '../services/bash.ts';
import type { Call } from './call.ts';
import { mount, type Routes } from './route.ts';

export function registerBash(app: Routes, ctx: DaemonContext): void {
  /**
   * Who the command runs for decides its sandbox (docs/security.md, "The sandbox"): the owner's
   * token is the person, unconfined; a node's token is that node, in the sandbox its own `bash`
   * tool runs in; any other token with a scope list gets one built from its files scopes (and
   * the live shares made to its app, as the files routes grant them).
   */
  const confinementOf = (c: Call): Confinement => {
    const principal = c.principal!;
    if (principal.kind === 'node') {
      const row = ctx.store.nodes.get(principal.nodeId!);
      if (row === undefined) throw new ApiError('unauthorized', 'the node of this token is gone');
      return { plan: ctx.sandbox.forNode(row) };
    }
    const scopes = ctx.shares.filesScopes(principal);
    if (scopes === null) return null;
    const plan = ctx.sandbox.forToken(scopes, principal.appId);
    return { plan, session: () => ctx.sandbox.tokenSession(principal.tokenId, plan) };
  };
  mount(app, 'bash.run', async (c, { body }) =>
    c.json(await runBash(body, ctx.hardStop, confinementOf(c))),
  );
}
