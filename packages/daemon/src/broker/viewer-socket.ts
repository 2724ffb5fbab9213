/**
 * The broker's viewer socket (`nodes.attach`): a host-local unix socket on which the broker
 * streams its node's conversation to read-only viewers, one JSON object per line.
 *
 * A viewer first gets the transcript so far, each turn as `{"type":"turn", ...turn}` (the turns
 * the broker loaded, then those it recorded since, with their tool calls as last recorded), then
 * every loop event live as it happens (`turn.started`, `text.delta`, `turn.recorded`,
 * `tool.started`, `tool.recorded`: `LoopEvent`), and last `{"type":"loop.ended", kind, reason}`
 * before the broker closes the socket. What a viewer writes is read and thrown away.
 *
 * The loop never waits for a viewer: a write goes to the socket's buffer, and a viewer whose
 * unsent bytes would pass its bound (what its transcript left unsent, plus `maxBufferedBytes`) is
 * disconnected. The socket is 0600 in a 0700 directory the supervisor made, so only the user
 * running the daemon can attach. The path names a listening socket only: it is bound under a
 * name of its own and renamed into place once it listens, and removed first when the broker
 * closes it (and by the supervisor when a broker dies without doing so).
 */
import { chmodSync, renameSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { LoopEvent } from './agent-loop.ts';
import type { LoopExit } from './loop-exit.ts';
import type { Turn } from './port.ts';

/** Unsent bytes a viewer may fall behind the live events by before it is dropped. */
export const DEFAULT_VIEWER_BUFFER_BYTES = 1 << 20;
/** Viewer sockets this process has bound: each stages under a name of its own. */
let staged = 0;
/** How long `close` lets viewers take their last lines before cutting them off. */
const CLOSE_GRACE_MS = 250;

export interface ViewerSocketOptions {
  /** Where to listen; a file left there (by a broker that was killed) is replaced. */
  path: string;
  /** Default `DEFAULT_VIEWER_BUFFER_BYTES`. */
  maxBufferedBytes?: number;
}

export interface ViewerSocket {
  readonly path: string;
  /** Starts serving viewers, the transcript starting from `turns` (the loaded conversation). */
  listen(turns: readonly Turn[]): Promise<void>;
  /** A loop event: sent to every viewer, and kept in the transcript when it records something. */
  publish(event: LoopEvent): void;
  /** Sends `loop.ended` (when `exit` is given), disconnects every viewer, removes the file. */
  close(exit?: LoopExit): Promise<void>;
}

export function createViewerSocket(options: ViewerSocketOptions): ViewerSocket {
  const { path } = options;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_VIEWER_BUFFER_BYTES;
  if (!Number.isSafeInteger(maxBufferedBytes) || maxBufferedBytes < 1) {
    throw new TypeError(
      `maxBufferedBytes must be a positive integer; received ${String(maxBufferedBytes)}`,
    );
  }
  /** The conversation by turn index; insertion order is turn order. */
  const transcript = new Map<number, Turn>();
  /** Each connected viewer and the unsent bytes it may reach before it is dropped. */
  const viewers = new Map<Socket, number>();
  const server = createServer({ allowHalfOpen: false }, (socket) => {
    socket.on('error', () => socket.destroy());
    socket.once('close', () => viewers.delete(socket));
    socket.resume(); // read-only: input is drained and ignored
    for (const turn of transcript.values()) socket.write(line({ type: 'turn', ...turn }));
    viewers.set(socket, socket.writableLength + maxBufferedBytes);
  });
  let opened = false;
  let closed: Promise<void> | null = null;

  const send = (text: string) => {
    const bytes = Buffer.byteLength(text);
    for (const [socket, bound] of viewers) {
      if (socket.writableLength + bytes > bound) {
        viewers.delete(socket);
        socket.destroy();
      } else {
        socket.write(text);
      }
    }
  };

  return {
    path,
    async listen(turns) {
      if (opened || closed !== null) throw new TypeError(`viewer socket ${path} was opened`);
      opened = true;
      for (const turn of turns) transcript.set(turn.index, turn);
      // Bound and listening under a name of its own first, then renamed into place: the path
      // never names a socket nobody listens on yet. Shorter than the path, so within its limit.
      const staging = join(dirname(path), `.${process.pid}-${++staged}.sock`);
      rmSync(staging, { force: true });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(staging, () => {
          server.off('error', reject);
          resolve();
        });
      });
      chmodSync(staging, 0o600);
      renameSync(staging, path);
    },
    publish(event) {
      if (event.type === 'turn.recorded') {
        transcript.set(event.turn.index, event.turn);
      } else if (event.type === 'tool.recorded') {
        const turn = transcript.get(event.index);
        if (turn !== undefined) {
          const calls = turn.tool_calls.map((c) => (c.id === event.call.id ? event.call : c));
          transcript.set(event.index, { ...turn, tool_calls: calls });
        }
      }
      // No viewer: no line to write (a text delta's JSON, say, for nobody).
      if (viewers.size > 0) send(line(event));
    },
    close(exit) {
      closed ??= (async () => {
        if (!server.listening) return;
        // Withdrawn first: no viewer finds it from now on, nor while the listener stops.
        rmSync(path, { force: true });
        if (exit !== undefined) send(line({ type: 'loop.ended', ...exit }));
        const gone = [...viewers.keys()].map(
          (socket) => new Promise<void>((resolve) => socket.end(resolve).once('close', resolve)),
        );
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, CLOSE_GRACE_MS);
        });
        await Promise.race([Promise.all(gone), grace]);
        clearTimeout(timer);
        for (const socket of viewers.keys()) socket.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closed;
    },
  };
}

function line(value: object): string {
  return `${JSON.stringify(value)}\n`;
}
