/**
 * What the human requests' operations are made of. Each operation takes the part of `HumanDeps`
 * it uses; `service.ts` builds the whole once.
 */
import { OPEN_TICKET_STATES } from '@svc/protocol';
import type { EventLog } from '../events/log.ts';
import type { NodeService } from '../nodes/service.ts';
import type { MailFrom } from '../nodes/store/mail.ts';
import type { AfterCommit } from '../ports.ts';
import type { Store } from '../store/index.ts';
import type { HumanRequest, HumanRequestRow, TicketRow } from './store.ts';

export interface HumanDeps {
  store: Store;
  events: EventLog;
  nodes: Pick<NodeService, 'deliver' | 'leaveMail' | 'sender' | 'onFinal'>;
  /** Tells the clock, once the transaction commits, that an expiry may have moved. */
  changed: (afterCommit: AfterCommit) => void;
  /** Called in the transaction that creates a request (the questions bind theirs there). */
  created: readonly ((row: HumanRequestRow, ticket: TicketRow) => void)[];
}

export type Action =
  | 'created'
  | 'replaced'
  | 'progress'
  | 'answered'
  | 'dismissed'
  | 'declined'
  | 'cancelled'
  | 'expired';

export type Closed = Exclude<HumanRequest['state'], 'open' | 'in_progress'>;

export const OWNER: MailFrom = { kind: 'owner', id: null };

export const iso = (ms = Date.now()) => new Date(ms).toISOString();

export const isOpen = (state: string) => (OPEN_TICKET_STATES as readonly string[]).includes(state);
