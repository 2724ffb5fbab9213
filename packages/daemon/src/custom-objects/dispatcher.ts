/**
 * Hands the deliveries of url and argv receivers over, with retries: a work on the clock, due at
 * the soonest due attempt. A url receiver gets a POST signed as Standard Webhooks say (2xx =
 * delivered); an argv receiver's program gets the delivery on stdin (exit 0 = delivered). At
 * most `MAX_IN_FLIGHT` attempts run at once; deliveries are independent, so their order is not
 * kept. What is due is in the database, so a restart resumes where the last daemon stopped; an
 * attempt goes out only once its take is durable, so none is made that the database forgets.
 */
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import type { DueWork } from '../clock/clock.ts';
import type { Logger } from '../lifecycle/logger.ts';
import { webhookSignature } from './secrets.ts';
import type { Attempt, CustomObjectService } from './service.ts';

const MAX_IN_FLIGHT = 8;
/** What an argv program's stderr may add to a failed attempt's error (its tail is kept). */
const STDERR_TAIL = 500;

export function objectDispatcher(
  service: CustomObjectService,
  logger: Logger,
  userAgent: string,
): DueWork & { close(): void } {
  const inFlight = new Map<string, { objectId: string; stop: AbortController }>();
  let closed = false;

  const unsubscribe = service.onUnregistered((objectId) => {
    for (const job of inFlight.values()) if (job.objectId === objectId) job.stop.abort();
  });

  /** Holds a taken attempt's place under the cap while its take becomes durable. */
  function reserve(attempt: Attempt): void {
    inFlight.set(attempt.delivery.id, { objectId: attempt.objectId, stop: new AbortController() });
  }

  function start(attempt: Attempt): void {
    const id = attempt.delivery.id;
    const job = inFlight.get(id);
    if (job === undefined) return;
    const signal = AbortSignal.any([
      job.stop.signal,
      AbortSignal.timeout(service.policy.attemptTimeoutMs),
    ]);
    // Stopped while its take was being made durable (unregistered, or the daemon stopping).
    const run = job.stop.signal.aborted
      ? async () => 'timed out or stopped'
      : attempt.receiver.kind === 'url'
        ? post
        : runProgram;
    void run(attempt, signal, userAgent)
      .catch((error: unknown) => reasonOf(error))
      .then((error) => {
        inFlight.delete(id);
        // Stopping: the attempt stays taken, and the next start makes it due again.
        if (closed) return;
        if (error !== null) {
          logger.info(
            { object_id: attempt.objectId, delivery_id: id, attempt: attempt.delivery.attempts },
            'custom object delivery attempt failed',
          );
        }
        try {
          service.finishAttempt(id, error);
        } catch (failure) {
          logger.error({ err: failure, delivery_id: id }, 'custom object delivery not recorded');
        }
      });
  }

  return {
    // At the cap nothing more may start: the end of an attempt re-arms (its commit is a change).
    soonest: () => (inFlight.size >= MAX_IN_FLIGHT ? null : service.soonest()),
    onChange: (listener) => service.onChange(listener),
    tick(first) {
      try {
        // Deliveries left in flight by the last daemon are due again before anything is taken.
        if (first) service.resumeInFlight();
        const room = MAX_IN_FLIGHT - inFlight.size;
        // Each goes out once its take is durable (`takeDue`); its place is held meanwhile.
        const taken = service.takeDue(Date.now(), room, (durable) => durable.forEach(start));
        taken.forEach(reserve);
        return false;
      } catch (error) {
        logger.error({ err: error }, 'custom object delivery tick failed');
        return true;
      }
    },
    /** Stops the attempts in flight (the clock's close stops the ticks). */
    close(): void {
      closed = true;
      unsubscribe();
      for (const job of inFlight.values()) job.stop.abort();
    },
  };
}

/** POSTs the delivery; `null` on a 2xx, else why not. Redirects are not followed. */
async function post(
  attempt: Attempt,
  signal: AbortSignal,
  userAgent: string,
): Promise<string | null> {
  if (attempt.receiver.kind !== 'url') return 'not a url receiver';
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': attempt.delivery.id,
    'webhook-timestamp': String(timestamp),
  };
  if (attempt.signingSecret !== null) {
    headers['webhook-signature'] = webhookSignature(
      attempt.signingSecret,
      attempt.delivery.id,
      timestamp,
      attempt.body,
    );
  }
  const res = await fetch(attempt.receiver.url, {
    method: 'POST',
    headers,
    body: attempt.body,
    redirect: 'manual',
    signal,
  });
  await res.body?.cancel().catch(() => {});
  return res.status >= 200 && res.status < 300 ? null : `HTTP ${res.status}`;
}

/**
 * Runs the program (no shell) in its own process group with the delivery on stdin; `null` on
 * exit 0. Past the attempt's time, or when stopped, the whole group is killed.
 */
function runProgram(attempt: Attempt, signal: AbortSignal): Promise<string | null> {
  const receiver = attempt.receiver;
  if (receiver.kind !== 'argv') return Promise.resolve('not an argv receiver');
  const [program, ...args] = receiver.argv as [string, ...string[]];
  return new Promise((resolve) => {
    const child = spawn(program, args, {
      cwd: receiver.cwd ?? homedir(),
      env: {
        ...process.env,
        SVC_OBJECT_ID: attempt.objectId,
        SVC_DELIVERY_ID: attempt.delivery.id,
      },
      stdio: ['pipe', 'ignore', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // A program that exits without reading its stdin is no failure of ours.
    child.stdin?.on('error', () => {});
    child.stdin?.end(attempt.body);
    const kill = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
    };
    signal.addEventListener('abort', kill, { once: true });
    child.once('error', (error) => {
      signal.removeEventListener('abort', kill);
      resolve(`cannot run ${JSON.stringify(program)}: ${reasonOf(error)}`);
    });
    child.once('close', (code, killedBy) => {
      signal.removeEventListener('abort', kill);
      if (code === 0) return resolve(null);
      const how = signal.aborted
        ? 'timed out or stopped'
        : killedBy !== null
          ? `killed by ${killedBy}`
          : `exit code ${code}`;
      const tail = stderr.trim();
      resolve(tail === '' ? how : `${how}: ${tail}`);
    });
  });
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out or stopped';
  // fetch's "fetch failed" says nothing; its cause (ECONNREFUSED, a TLS failure) does.
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
