/**
 * Broker processes and relaunch budgets (`brokers`, `broker_faults` of migration 004). A row per
 * broker process, keyed by its node token; a broker whose row has no `ended_at` was alive when
 * the daemon last knew of it.
 */
import type { Db } from './db.ts';

export interface BrokerRow {
  token_id: string;
  node_id: string;
  pid: number | null;
  started_at: string;
  claimed_at: string | null;
  ended_at: string | null;
  exit: string | null;
}

export function brokerStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      'INSERT INTO brokers (token_id, node_id, pid, started_at) VALUES (?, ?, ?, ?)',
    ),
    claimed: db.sqlite.prepare(
      'UPDATE brokers SET claimed_at = ? WHERE token_id = ? AND claimed_at IS NULL',
    ),
    end: db.sqlite.prepare(
      'UPDATE brokers SET ended_at = ?, exit = ? WHERE token_id = ? AND ended_at IS NULL',
    ),
    get: db.sqlite.prepare('SELECT * FROM brokers WHERE token_id = ?'),
    live: db.sqlite.prepare('SELECT * FROM brokers WHERE ended_at IS NULL ORDER BY started_at'),
    addFault: db.sqlite.prepare(
      `INSERT INTO broker_faults (node_id, count) VALUES (?, 1)
       ON CONFLICT (node_id) DO UPDATE SET count = count + 1 RETURNING count`,
    ),
    resetFaults: db.sqlite.prepare('DELETE FROM broker_faults WHERE node_id = ?'),
  };
  return {
    insert(tokenId: string, nodeId: string, pid: number, at: string): void {
      q.insert.run(tokenId, nodeId, pid, at);
    },
    claimed(tokenId: string, at: string): void {
      q.claimed.run(at, tokenId);
    },
    end(tokenId: string, exit: string, at: string): void {
      q.end.run(at, exit, tokenId);
    },
    get(tokenId: string): BrokerRow | undefined {
      return q.get.get(tokenId) as BrokerRow | undefined;
    },
    /** Brokers not known to have ended, oldest first. */
    live(): BrokerRow[] {
      return q.live.all() as unknown as BrokerRow[];
    },
    /** Counts one more fault against the node's relaunch budget; answers the new count. */
    addFault(nodeId: string): number {
      return (q.addFault.get(nodeId) as { count: number }).count;
    },
    /** A new turn is progress: the relaunch budget starts again. */
    resetFaults(nodeId: string): void {
      q.resetFaults.run(nodeId);
    },
  };
}

export type BrokerStore = ReturnType<typeof brokerStore>;
