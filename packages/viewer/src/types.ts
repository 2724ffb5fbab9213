/**
 * The parts of the daemon's DTOs the viewer shows (docs/api-v1.md, docs/nodes.md). Kept here
 * rather than imported from @svc/protocol so the bundle carries no schema code; answers may
 * gain fields, which the viewer ignores.
 */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export type NodeState = 'queued' | 'running' | 'waiting' | 'done' | 'failed' | 'cancelled';

export interface Outcome {
  state: string;
  result: unknown;
  summary: string | null;
  error: { code: string; message: string } | null;
  finished_at: string;
}

export interface SvcNode {
  id: string;
  parent_id: string | null;
  root_id: string;
  run_id: string | null;
  app_id: string | null;
  profile: string;
  title: string;
  task: string;
  state: NodeState;
  state_reason: string | null;
  waiting_on: Record<string, unknown> | null;
  scopes: string[] | null;
  model: { provider: string; model: string } | null;
  budgets: Record<string, number | null>;
  usage: { turns: number; input_tokens: number; output_tokens: number; cost_usd: number };
  outcome: Outcome | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface SvcEvent {
  seq: number;
  kind: string;
  subject_id: string | null;
  payload: Record<string, unknown>;
  created_at: string;
}

export interface Turn {
  index: number;
  input: { role?: string; text: string }[];
  text: string;
  tool_calls: { id?: string; name: string; input: unknown }[];
  finish_reason: string;
}

export interface Ticket {
  id: string;
  request_id: string;
  kind: 'question' | 'approval' | 'review';
  title: string;
  body: string;
  options: string[];
  response_schema: Record<string, unknown> | null;
  state: string;
  progress_note: string | null;
  asker: { node_id: string | null; app_id: string | null };
  created_at: string;
  updated_at: string;
}

export interface Cron {
  id: string;
  name: string;
  schedule: string;
  timezone: string;
  state: 'active' | 'paused';
  next_run_at: string | null;
  last_run_at: string | null;
  last_node_id: string | null;
  fire_count: number;
}

export interface Plugin {
  name: string;
  description: string;
  endpoint: string;
  major: number | null;
  auth: string;
  groups: { name: string; description: string; scope: string }[];
  commands: { group: string; name: string; description: string; scope: string }[];
  installed_at: string;
}
