/** The canvas schemas: the query and body forms the daemon validates with. */
import { describe, expect, it } from 'vitest';
import {
  attentionQuerySchema,
  canvasPruneBodySchema,
  canvasSnapshotQuerySchema,
  historyGrepQuerySchema,
  historyStatsQuerySchema,
  rosterQuerySchema,
} from '../src/index.ts';

describe('canvas schemas', () => {
  it('reads attention kinds as a list without repeats, and refuses unknown ones', () => {
    expect(attentionQuerySchema.parse({ kinds: 'ticket,node_failed,ticket' }).kinds).toEqual([
      'ticket',
      'node_failed',
    ]);
    expect(attentionQuerySchema.safeParse({ kinds: 'ticket,,x' }).success).toBe(false);
  });

  it('bounds the snapshot and takes only live states in the roster', () => {
    expect(canvasSnapshotQuerySchema.parse({ limit: '5000' }).limit).toBe(5000);
    expect(canvasSnapshotQuerySchema.safeParse({ limit: '5001' }).success).toBe(false);
    expect(rosterQuerySchema.parse({ state: 'queued,waiting' }).state).toEqual([
      'queued',
      'waiting',
    ]);
    expect(rosterQuerySchema.safeParse({ state: 'done' }).success).toBe(false);
  });

  it('takes a strict prune body', () => {
    expect(canvasPruneBodySchema.parse({})).toEqual({});
    expect(canvasPruneBodySchema.safeParse({ older_than_s: -1 }).success).toBe(false);
    expect(canvasPruneBodySchema.safeParse({ older_than: 5 }).success).toBe(false);
    expect(canvasPruneBodySchema.safeParse({ limit: 1001 }).success).toBe(false);
  });

  it('reads grep and stats options', () => {
    expect(historyGrepQuerySchema.parse({ pattern: 'x', ignore_case: 'true' }).ignore_case).toBe(
      true,
    );
    expect(historyGrepQuerySchema.safeParse({ pattern: 'x'.repeat(501) }).success).toBe(false);
    expect(historyStatsQuerySchema.parse({ since: '2026-01-02T03:04:05+01:00' }).since).toBe(
      '2026-01-02T03:04:05+01:00',
    );
    expect(historyStatsQuerySchema.safeParse({ group_by: 'week' }).success).toBe(false);
  });
});
