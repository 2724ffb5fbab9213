/**
 * The daemon's DTOs the viewer shows, each the protocol's one type of its schema (type-only
 * imports, erased from the bundle, so they carry no schema code). Answers may gain fields,
 * which the viewer ignores.
 */
export type {
  AttentionItem,
  Cron,
  HistoryStats,
  InboxResponse,
  Job,
  Node as SvcNode,
  Plugin,
  Profile,
  SvcEvent,
  Ticket,
  Turn,
} from '@svc/protocol';

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}
