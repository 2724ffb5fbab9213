/**
 * The agent host's messages (`./host.ts`), one JSON object a line each way. The supervisor writes
 * commands on the host's stdin; the host answers on a channel of its own (fd 3), never on
 * stdout or stderr, where whatever else the process prints goes (to the host's own log).
 */
import type { Readable } from 'node:stream';

/** The fd of the host's answers: an extra pipe, so nothing printed can pass for an answer. */
export const HOST_CHANNEL_FD = 3;
/** A longer line is no message of ours: the rest of it is dropped up to its end. */
const MAX_LINE = 16 * 1024 * 1024;

/** Supervisor → host. */
export type HostCommand =
  /** A node to run (`brokerLaunchSchema`); the only way its token and secrets reach the host. */
  | { launch: unknown }
  /** Abort the node's loop; after `grace_ms` (at once for 0) drop it and report it ended. */
  | { stop: string; grace_ms: number }
  /** The node's env and sandbox plan made again: its sandbox closes; what follows goes by these. */
  | { reconfine: string; env: unknown; sandbox?: unknown };

/**
 * How a node's loop ended in its host: its own course (`LoopExitKind`), `dropped` (stopped and cut
 * off), `bad_launch` (its launch message was refused), `failed` (the loop threw).
 */
export type HostEnd = string;

/** Host → supervisor. */
export type HostReport =
  /** A log line of the node (`fields` holds `node_id`), for its own log file. */
  | { log: Record<string, unknown>; node_id: string }
  /** The node's loop ended and everything of it is closed: its slot is free. */
  | { ended: string; kind: HostEnd };

/**
 * Calls `onLine` with each complete line of `stream` (UTF-8), in order; the last one when the
 * stream ends without a newline too.
 */
export function readLines(stream: Readable, onLine: (line: string) => void): void {
  let buf = '';
  let skipping = false;
  stream.setEncoding('utf8');
  stream.on('data', (data: string) => {
    buf += data;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (skipping) skipping = false;
      else onLine(line);
    }
    if (buf.length > MAX_LINE) {
      buf = '';
      skipping = true;
    }
  });
  stream.on('end', () => {
    if (buf !== '' && !skipping) onLine(buf);
    buf = '';
  });
}

/** The line as a JSON object, or `null`. */
export function parseObject(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
