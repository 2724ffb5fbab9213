/** What the questions' operations are made of; each takes the part it uses. */

import type { EventLog } from '../events/log.ts';
import type { HumanService } from '../human/service.ts';
import type { NodeService } from '../nodes/service.ts';
import type { Store } from '../store/index.ts';

export interface QuestionDeps {
  store: Store;
  events: EventLog;
  human: Pick<HumanService, 'onCreated' | 'answerFor' | 'expireDue'>;
  nodes: Pick<NodeService, 'sender'>;
}
