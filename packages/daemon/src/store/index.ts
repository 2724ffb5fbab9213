import { jobStore } from '../nodes/store/jobs.ts';
import { mailStore } from '../nodes/store/mail.ts';
import { nodeEventStore } from '../nodes/store/node-events.ts';
import { nodeStore } from '../nodes/store/nodes.ts';
import { reportStore } from '../nodes/store/reports.ts';
import { turnStore } from '../nodes/store/turns.ts';
import { runStore } from '../runs/store.ts';
import { brokerStore } from './brokers.ts';
import { canvasStore } from './canvas.ts';
import { cronStore } from './crons.ts';
import { customObjectStore } from './custom-objects.ts';
import { openDb } from './db.ts';
import { eventStore } from './events.ts';
import { focusStore } from './focuses.ts';
import { humanStore } from './human.ts';
import { idempotencyStore } from './idempotency.ts';
import { memoryStore } from './memory.ts';
import { modelStore } from './models.ts';
import { pluginStore } from './plugins.ts';
import { profileStore } from './profiles.ts';
import { questionStore } from './questions.ts';
import { secretStore } from './secrets.ts';
import { shareStore } from './shares.ts';
import { tokenStore } from './tokens.ts';
import { uploadStore } from './uploads.ts';
import { viewerSessionStore } from './viewer-sessions.ts';

export type { Db } from './db.ts';

/** The database and its query modules. */
export function openStore(path: string) {
  const db = openDb(path);
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
