/**
 * Whether something accepts connections on a unix socket now. A socket file outlives its listener
 * when the process holding it dies by a signal (the kernel removes no file), and a broker
 * preempted between its bind and its listen shows a file nobody listens on yet: a connect is the
 * only way to tell, so `nodes.attach` never hands a viewer a path that answers `ECONNREFUSED`.
 */
import { connect } from 'node:net';

/** A listener answers a local connect at once, or its backlog is full: either way, soon. */
const PROBE_TIMEOUT_MS = 1_000;

export function acceptsConnections(path: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
