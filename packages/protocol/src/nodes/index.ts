export {
  type BudgetName,
  type Budgets,
  DEFAULT_BUDGETS,
  exhaustedBudget,
  mergeBudgets,
  type Usage,
} from './budgets.ts';
export { type Ceiling, type NodeScopesResult, resolveNodeScopes } from './scopes.ts';
export {
  allowedFrom,
  FINAL_STATES,
  type FromState,
  isFinal,
  isNodeState,
  NODE_ACTIONS,
  NODE_STATES,
  type NodeAction,
  type NodeState,
  TRANSITIONS,
  type TransitionResult,
  transition,
} from './state-machine.ts';
export {
  availableTools,
  BUILTIN_TOOLS,
  type BuiltinTool,
  type BuiltinToolName,
  isBuiltinTool,
  pluginToolName,
  TOOL_NAME_PATTERN,
} from './tools.ts';
