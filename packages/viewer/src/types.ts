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
  ListEnvelope as Page,
  Node as SvcNode,
  Plugin,
  Profile,
  SvcEvent,
  Ticket,
  Turn,
} from '@svc/protocol';
