/**
 * The built-in tools a broker offers its model, each allowed by the scope the protocol gives it
 * (`BUILTIN_TOOLS`: `svc:act` for bash, the file tools, spawn, message and ask_human; the rest
 * for every node).
 */
import { availableTools, type Scope } from '@svc/protocol';
import { askHumanTool } from './ask-human.ts';
import { bashTool } from './bash.ts';
import { listFilesTool, readFileTool, writeFileTool } from './files.ts';
import { memoryListTool, memoryReadTool, memoryWriteTool } from './memory.ts';
import { messageTool } from './message.ts';
import { reportTool } from './report.ts';
import { spawnTool } from './spawn.ts';
import { submitTool } from './submit.ts';
import type { BrokerTool } from './tool.ts';
import { waitTool } from './wait.ts';
import { yieldTool } from './yield.ts';

export {
  type BrokerTool,
  defineTool,
  type InlineResult,
  type JobEnd,
  type LoopStop,
  type ToolContext,
  type ToolOutcome,
  toolScope,
  toolSpec,
} from './tool.ts';

export const BROKER_TOOLS: readonly BrokerTool[] = [
  bashTool,
  readFileTool,
  writeFileTool,
  listFilesTool,
  spawnTool,
  messageTool,
  askHumanTool,
  waitTool,
  yieldTool,
  reportTool,
  submitTool,
  memoryReadTool,
  memoryListTool,
  memoryWriteTool,
];

const BY_NAME = new Map(BROKER_TOOLS.map((t) => [t.name as string, t]));

/**
 * The tools a node holding `scopes` may use (`null`: the owner, who holds everything), cut to
 * `allowed` when given (the session's list: scopes ∩ the profile's allow-list).
 */
export function toolsFor(
  scopes: readonly Scope[] | null,
  allowed: readonly string[] | null = null,
): BrokerTool[] {
  return availableTools(scopes, allowed).flatMap((name) => BY_NAME.get(name) ?? []);
}
