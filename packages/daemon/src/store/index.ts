import { canvasStore } from '../canvas/store.ts';
import { cronStore } from '../crons/store.ts';
import { customObjectStore } from '../custom-objects/store.ts';
import { focusStore } from '../focuses/store.ts';
import { humanStore } from '../human/store.ts';
import { memoryStore } from '../memory/store.ts';
import { modelStore } from '../models/store.ts';
import { jobStore } from '../nodes/store/jobs.ts';
import { mailStore } from '../nodes/store/mail.ts';
import { nodeEventStore } from '../nodes/store/node-events.ts';
import { nodeStore } from '../nodes/store/nodes.ts';
import { reportStore } from '../nodes/store/reports.ts';
import { turnStore } from '../nodes/store/turns.ts';
import { pluginStore } from '../plugins/store.ts';
import { profileStore } from '../profiles/store.ts';
import { questionStore } from '../questions/store.ts';
import { runStore } from '../runs/store.ts';
import { shareStore } from '../shares/store.ts';
import { tokenStore } from '../tokens/store.ts';
import { uploadStore } from '../uploads/store.ts';
import { viewerSessionStore } from '../viewer/store.ts';
import { brokerStore } from './brokers.ts';
import { type DbOptions, openDb } from './db.ts';
import { eventStore } from './events.ts';
import { idempotencyStore } from './idempotency.ts';
import { secretStore } from './secrets.ts';

export type { Db } from './db.ts';

/** The database and its query modules. */
export function openStore(path: string, opts: DbOptions = {}) {
  const db = openDb(path, opts);
  return {
    db,
    tokens: tokenStore(db),
    events: eventStore(db),
    idempotency: idempotencyStore(db),
    models: modelStore(db),
    profiles: profileStore(db),
    nodes: nodeStore(db),
    runs: runStore(db),
    turns: turnStore(db),
    mail: mailStore(db),
    reports: reportStore(db),
    jobs: jobStore(db),
    nodeEvents: nodeEventStore(db),
    brokers: brokerStore(db),
    plugins: pluginStore(db),
    crons: cronStore(db),
    customObjects: customObjectStore(db),
    human: humanStore(db),
    memory: memoryStore(db),
    viewerSessions: viewerSessionStore(db),
    canvas: canvasStore(db),
    uploads: uploadStore(db),
    shares: shareStore(db),
    questions: questionStore(db),
    secrets: secretStore(db),
    focuses: focusStore(db),
  };
}

export type Store = ReturnType<typeof openStore>;
