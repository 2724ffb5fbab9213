/**
 * The daemon's DTOs the viewer shows: the client's own types (type-only imports, erased from the
 * bundle, so it carries no client or schema code), and the plugin registry's, which the client
 * has no namespace for (docs/api-v1.md "The plugin registry"). Answers may gain fields, which
 * the viewer ignores.
 */
export type {
  Cron,
  Node as SvcNode,
  SvcEvent,
  Ticket,
  Turn,
} from '@svc/client';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
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
