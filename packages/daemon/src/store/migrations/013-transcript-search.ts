/**
 * Full-text search over the recorded turns (docs/api-v1.md "Canvas", `canvas.history.search`):
 * an FTS5 index with one document per turn, keyed by the turn's rowid, holding the messages
 * given to the model, its answer, and each tool call's name, input and output. Triggers keep it
 * in step with `turns` and `tool_calls` (a tool result arrives after its turn), so no writer of
 * turns has to know about it, and a tree's deletion drops its documents with its turns.
 */

/**
 * The document of the turn aliased `t`; since 021, `canvas/search-index.ts` writes it (in batches).
 */
export const DOC = `coalesce((SELECT group_concat(json_extract(m.value, '$.text'), char(10))
      FROM json_each(t.input) m), '')
  || char(10) || t.text
  || coalesce((SELECT char(10) || group_concat(c.name || ' ' || coalesce(c.input, '') || ' '
      || coalesce(c.output, ''), char(10))
      FROM tool_calls c WHERE c.node_id = t.node_id AND c.turn_idx = t.idx), '')`;

/** Rewrites the document of the turn a tool call row `NEW` belongs to. */
const REINDEX_TURN_OF_CALL = `
  DELETE FROM turn_search
    WHERE rowid = (SELECT rowid FROM turns WHERE node_id = NEW.node_id AND idx = NEW.turn_idx);
  INSERT INTO turn_search (rowid, body, node_id, turn)
    SELECT t.rowid, ${DOC}, t.node_id, t.idx FROM turns t
    WHERE t.node_id = NEW.node_id AND t.idx = NEW.turn_idx;`;

export const sql = `
CREATE VIRTUAL TABLE turn_search USING fts5(
  body,
  node_id UNINDEXED,
  turn UNINDEXED,
  tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO turn_search (rowid, body, node_id, turn)
  SELECT t.rowid, ${DOC}, t.node_id, t.idx FROM turns t;

CREATE TRIGGER turns_search_insert AFTER INSERT ON turns BEGIN
  INSERT INTO turn_search (rowid, body, node_id, turn)
    SELECT t.rowid, ${DOC}, t.node_id, t.idx FROM turns t WHERE t.rowid = NEW.rowid;
END;

CREATE TRIGGER turns_search_delete AFTER DELETE ON turns BEGIN
  DELETE FROM turn_search WHERE rowid = OLD.rowid;
END;

CREATE TRIGGER tool_calls_search_insert AFTER INSERT ON tool_calls BEGIN
  ${REINDEX_TURN_OF_CALL}
END;

CREATE TRIGGER tool_calls_search_update AFTER UPDATE OF name, input, status, output ON tool_calls BEGIN
  ${REINDEX_TURN_OF_CALL}
END;
`;
