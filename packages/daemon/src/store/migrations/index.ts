import { sql as initial } from './001-initial.ts';
import { sql as modelsProfiles } from './002-models-profiles.ts';
import { sql as nodes } from './003-nodes.ts';
import { sql as broker } from './004-broker.ts';
import { sql as plugins } from './005-plugins.ts';
import { sql as crons } from './006-crons.ts';
import { sql as human } from './007-human.ts';
import { sql as viewerSessions } from './008-viewer-sessions.ts';
import { sql as cronOverlap } from './009-cron-overlap.ts';
import { sql as customObjects } from './010-custom-objects.ts';
import { sql as memory } from './011-memory.ts';
import { sql as appApi } from './012-app-api.ts';
import { sql as transcriptSearch } from './013-transcript-search.ts';
import { sql as shareCreatorToken } from './014-share-creator-token.ts';
import { sql as focuses } from './015-focuses.ts';
import { sql as idempotencyMade } from './016-idempotency-made.ts';
import { sql as workspaces } from './017-workspaces.ts';
import { sql as profileNetwork } from './018-profile-network.ts';
import { sql as nodeNetwork } from './019-node-network.ts';
import { sql as jobsToCancel } from './020-jobs-to-cancel.ts';
import { sql as searchInBatches } from './021-search-in-batches.ts';

/**
 * Numbered schema migrations, applied in order; `PRAGMA user_version` records how many ran.
 * Append only: an applied migration is never edited, a change is a new entry.
 */
export const migrations: readonly string[] = [
  initial,
  modelsProfiles,
  nodes,
  broker,
  plugins,
  crons,
  human,
  viewerSessions,
  cronOverlap,
  customObjects,
  memory,
  appApi,
  transcriptSearch,
  shareCreatorToken,
  focuses,
  idempotencyMade,
  workspaces,
  profileNetwork,
  nodeNetwork,
  jobsToCancel,
  searchInBatches,
];
