import { availableTools, isBuiltinTool, pluginToolName } from '@svc/protocol';
import { toNode } from '../nodes/store/to-node.ts';
import { offeredPlugins } from '../plugins/offered.ts';
import { nodeRow, now, type PlaneDeps } from './deps.ts';
import { directiveOf } from './directive.ts';
import { claimNextMail } from './mail.ts';
import { parkIfSpent } from './park.ts';

/**
 * `broker.claim`: queued → running; answers what the broker resumes from, with its mail claimed.
 * The claim's pid and version are the broker's own word; the supervisor recorded the pid it
 * spawned.
 */
export function claim(
  deps: Pick<PlaneDeps, 'store' | 'nodes' | 'profiles'>,
  id: string,
  tokenId: string,
) {
  const { store, nodes, profiles } = deps;
  return store.db.transaction((afterCommit) => {
    const queued = nodeRow(store, id);
    const settings = profiles.find(queued.profile);
    const { scopes } = queued;
    const installed = offeredPlugins(store.plugins.all());
    const tools = availableTools(scopes, settings?.tools ?? null, installed.groups);
    const plugins = installed.keep(tools);
    // What the model will see, named as it calls them: who watches can tell why a call was or
    // was not made.
    const offered = [
      ...tools.filter(isBuiltinTool),
      ...plugins.flatMap((p) => p.commands.flatMap((c) => pluginToolName(c) ?? [])),
    ];
    const node = nodes.move(queued, 'start', { tools: offered }, afterCommit);
    store.brokers.claimed(tokenId, now());
    // Woken by mail while its budget is spent, it parks again before any model call.
    parkIfSpent(deps, node, afterCommit);
    const directive = directiveOf(store, node);
    return {
      node: toNode(node),
      system_prompt: settings?.system_prompt ?? null,
      tools,
      plugins,
      turns: store.turns.list(id),
      directive,
      ...(directive.action === 'continue' && { mail: claimNextMail(store, id) }),
    };
  });
}
