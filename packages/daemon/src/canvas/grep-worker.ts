/**
 * Runs a grep's regular expression off the daemon's thread (`canvas-grep.ts`). A pattern can
 * backtrack for ever on some input, and a RegExp cannot be interrupted from inside its own
 * thread; in a worker it can: the daemon terminates the worker when the time bound passes and
 * answers with what was found by then. Self-contained (no imports of the project), so Node loads
 * it directly.
 */
import { parentPort, workerData } from 'node:worker_threads';

export interface GrepPart {
  where: 'input' | 'text' | 'tool_call';
  text: string;
}

export interface GrepDoc {
  node_id: string;
  turn: number;
  created_at: string;
  parts: GrepPart[];
}

export interface GrepHit {
  node_id: string;
  turn: number;
  where: GrepPart['where'];
  line: string;
  created_at: string;
}

/** A batch to scan: at most `max` hits wanted from it. */
export interface GrepRequest {
  docs: GrepDoc[];
  max: number;
}

export interface GrepWorkerData {
  pattern: string;
  flags: string;
}

/** Lines longer than this are cut to a window around the match. */
const LINE_MAX = 400;
const BEFORE_MATCH = 120;

const { pattern, flags } = workerData as GrepWorkerData;
const regex = new RegExp(pattern, flags);

function cut(line: string, at: number): string {
  if (line.length <= LINE_MAX) return line;
  const start = Math.max(0, Math.min(at - BEFORE_MATCH, line.length - LINE_MAX));
  const end = start + LINE_MAX;
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`;
}

function scan({ docs, max }: GrepRequest): GrepHit[] {
  const hits: GrepHit[] = [];
  for (const doc of docs) {
    for (const part of doc.parts) {
      for (const line of part.text.split('\n')) {
        const match = regex.exec(line);
        if (match === null) continue;
        hits.push({
          node_id: doc.node_id,
          turn: doc.turn,
          where: part.where,
          line: cut(line, match.index),
          created_at: doc.created_at,
        });
        if (hits.length >= max) return hits;
      }
    }
  }
  return hits;
}

parentPort?.on('message', (request: GrepRequest) => {
  parentPort?.postMessage(scan(request));
});
