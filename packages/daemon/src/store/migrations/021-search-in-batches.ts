/**
 * The transcript index (013) is brought up to date in batches (`canvas/search-index.ts`) instead
 * of in the commit of every record: recording a turn, or a tool call of it, or that call's result,
 * now only marks the turn's document stale. 013's triggers rewrote the whole document in each of
 * those commits (three FTS5 writes, each tokenizing the turn again, for a turn with one `bash`
 * call), on the path of every agent step; a batch writes each stale turn once, many to a segment.
 */
export const sql = `
DROP TRIGGER turns_search_insert;
DROP TRIGGER tool_calls_search_insert;
DROP TRIGGER tool_calls_search_update;

CREATE TABLE turn_search_stale (
  turn INTEGER PRIMARY KEY  -- a turns rowid whose turn_search document is missing or out of date
);

CREATE TRIGGER turns_search_stale AFTER INSERT ON turns BEGIN
  INSERT OR IGNORE INTO turn_search_stale (turn) VALUES (NEW.rowid);
END;

CREATE TRIGGER tool_calls_search_stale_insert AFTER INSERT ON tool_calls BEGIN
  INSERT OR IGNORE INTO turn_search_stale (turn)
    SELECT rowid FROM turns WHERE node_id = NEW.node_id AND idx = NEW.turn_idx;
END;

CREATE TRIGGER tool_calls_search_stale_update
  AFTER UPDATE OF name, input, status, output ON tool_calls BEGIN
  INSERT OR IGNORE INTO turn_search_stale (turn)
    SELECT rowid FROM turns WHERE node_id = NEW.node_id AND idx = NEW.turn_idx;
END;

CREATE TRIGGER turns_search_stale_delete AFTER DELETE ON turns BEGIN
  DELETE FROM turn_search_stale WHERE turn = OLD.rowid;
END;
`;
