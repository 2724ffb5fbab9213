import { brokerStore } from './brokers.ts';
import { cronStore } from './crons.ts';
import { openDb } from './db.ts';
import { eventStore } from './events.ts';
import { humanStore } from './human.ts';
import { idempotencyStore } from './idempotency.ts';
import { jobStore } from './jobs.ts';
import { mailStore } from './mail.ts';
import { modelStore } from './models.ts';
import { nodeEventStore } from './node-events.ts';
import { nodeStore } from './nodes.ts';
import { pluginStore } from './plugins.ts';
import { profileStore } from './profiles.ts';
import { reportStore } from './reports.ts';
import { runStore } from './runs.ts';
import { tokenStore } from './tokens.ts';
import { turnStore } from './turns.ts';
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
    human: humanStore(db),
    viewerSessions: viewerSessionStore(db),
  };
}

export type Store = ReturnType<typeof openStore>;
