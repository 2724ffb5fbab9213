/**
 * Mail to a node, numbered per node (`seq`). It is `pending` until a broker claims it, `claimed`
 * until the broker acknowledges it (the turn that delivered it is recorded), then
 * `acknowledged`. Claimed mail never acknowledged (its broker died) is claimed again, so mail
 * reaches the model at least once and is recorded exactly once.
 */
import type { Mail } from '@svc/protocol';
import type { Db } from '../../store/db.ts';

export type { Mail };
export type MailFrom = Mail['from'];

interface MailRow {
  node_id: string;
  seq: number;
  from_kind: MailFrom['kind'];
  from_id: string | null;
  text: string;
  created_at: string;
  claimed_at: string | null;
  acknowledged_at: string | null;
}

export function mailStore(db: Db) {
  const q = {
    insert: db.sqlite.prepare(
      `INSERT INTO mail (node_id, seq, from_kind, from_id, text, created_at)
       VALUES (:node_id, (SELECT coalesce(max(seq), 0) + 1 FROM mail WHERE node_id = :node_id),
         :from_kind, :from_id, :text, :created_at)
       RETURNING *`,
    ),
    claim: db.sqlite.prepare(
      `UPDATE mail SET claimed_at = :at
       WHERE node_id = :node_id AND seq IN (
         SELECT seq FROM mail WHERE node_id = :node_id AND acknowledged_at IS NULL
         ORDER BY seq LIMIT :limit)
       RETURNING *`,
    ),
    anyUnacknowledged: db.sqlite.prepare(
      'SELECT 1 FROM mail WHERE node_id = ? AND acknowledged_at IS NULL LIMIT 1',
    ),
    acknowledge: db.sqlite.prepare(
      `UPDATE mail SET acknowledged_at = :at
       WHERE node_id = :node_id AND acknowledged_at IS NULL AND claimed_at IS NOT NULL
         AND seq IN (SELECT value FROM json_each(:seqs))`,
    ),
    unacknowledged: db.sqlite.prepare(
      'SELECT count(*) AS n FROM mail WHERE node_id = ? AND acknowledged_at IS NULL',
    ),
    list: db.sqlite.prepare(
      'SELECT * FROM mail WHERE node_id = ? AND seq > ? ORDER BY seq LIMIT ?',
    ),
  };
  return {
    /** Appends mail with the node's next seq. Call in the transaction that records `node.mail`. */
    insert(nodeId: string, from: MailFrom, text: string, at: string): Mail {
      const row = q.insert.get({
        node_id: nodeId,
        from_kind: from.kind,
        from_id: from.id,
        text,
        created_at: at,
      }) as unknown as MailRow;
      return toMail(row);
    },
    /** Marks up to `limit` unacknowledged mails claimed (pending ones and re-claims), oldest first. */
    claim(nodeId: string, limit: number, at: string): Mail[] {
      // Most claims ride along with a tool result and find nothing: a read says so for a tenth
      // of the UPDATE's cost.
      if (q.anyUnacknowledged.get(nodeId) === undefined) return [];
      const rows = q.claim.all({ node_id: nodeId, limit, at }) as unknown as MailRow[];
      return rows.map(toMail).sort((a, b) => a.seq - b.seq);
    },
    /** Acknowledges claimed mail; answers how many changed (repeats and unknown seqs count 0). */
    acknowledge(nodeId: string, seqs: readonly number[], at: string): number {
      return Number(q.acknowledge.run({ node_id: nodeId, seqs: JSON.stringify(seqs), at }).changes);
    },
    /** How many mails the node has not yet had recorded in a turn (pending or claimed). */
    unacknowledged(nodeId: string): number {
      return (q.unacknowledged.get(nodeId) as { n: number }).n;
    },
    list(nodeId: string, afterSeq = 0, limit = 1000): Mail[] {
      return (q.list.all(nodeId, afterSeq, limit) as unknown as MailRow[]).map(toMail);
    },
  };
}

export type MailStore = ReturnType<typeof mailStore>;

function toMail(row: MailRow): Mail {
  return {
    seq: row.seq,
    node_id: row.node_id,
    from: { kind: row.from_kind, id: row.from_id },
    text: row.text,
    state:
      row.acknowledged_at !== null
        ? 'acknowledged'
        : row.claimed_at !== null
          ? 'claimed'
          : 'pending',
    created_at: row.created_at,
    claimed_at: row.claimed_at,
    acknowledged_at: row.acknowledged_at,
  };
}
