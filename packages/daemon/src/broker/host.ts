/**
 * The agent host: one Node process that runs the agent loops of many nodes at once
 * (`./node-loop.ts`, each with its own abort, port and node token, viewer socket, sandbox and
 * worktree), spawned by the daemon's supervisor in its own process group. It loads its modules
 * and makes its tools' specs first, then takes commands on stdin, one JSON line each
 * (`./host-protocol.ts`): `{"launch": <brokerLaunchSchema>}` starts a node's loop, `{"stop":
 * "<node id>", "grace_ms": n}` aborts it (what SIGTERM was to a broker process) and drops it
 * when the grace runs out. Its answers go on fd 3: a node's log lines, tagged with its id, and
 * `ended` once a node's loop is over and closed. A daemon that goes away closes its stdin: every
 * loop is aborted and dropped, and the host exits.
 *
 * It never changes its working directory or its environment for a node: those are the node's
 * own, passed to its tools (its commands' env carries the node's mark, `broker-tag.ts`).
 */
import { fstatSync } from 'node:fs';
import { Socket } from 'node:net';
import { dirname } from 'node:path';
import { brokerLaunchSchema } from '@svc/protocol';
import { z } from 'zod';
import { mallocTrimmer } from '../lifecycle/malloc-trim.ts';
import { hostIdleRelease } from './host-idle-release.ts';
import {
  HOST_CHANNEL_FD,
  type HostEnd,
  type HostReport,
  parseObject,
  readLines,
} from './host-protocol.ts';
import { type NodeLoop, startNodeLoop } from './node-loop.ts';
import { BROKER_TOOLS, toolSpec } from './tools/index.ts';
import { JITLESS } from './zod-options.ts';

interface Held {
  loop: NodeLoop;
  /** The stop's grace: when it runs out, the node is dropped. */
  timer?: NodeJS.Timeout;
  reported: boolean;
}

const EXIT_NO_CHANNEL = 2;

if (!isChannel(HOST_CHANNEL_FD)) {
  hostLog({
    msg: `no answer channel on fd ${HOST_CHANNEL_FD}: the daemon's supervisor starts hosts`,
  });
  process.exit(EXIT_NO_CHANNEL);
}
// A host does what needs no node while it waits for one, so its nodes' first turns do not.
for (const tool of BROKER_TOOLS) toolSpec(tool);

const channel = new Socket({ fd: HOST_CHANNEL_FD, readable: false, writable: true });
// A daemon gone: its end of the channel closes with stdin, which ends the host.
channel.on('error', () => {
  if (closing) process.exit(0);
});
const held = new Map<string, Held>();
let closing = false;
// Where the daemon builds its native programs (a launch's sandbox plan says), for the trim.
let nativeCache: string | null = null;
// Called only once a launch has named it (`onRelease` below).
const trim = mallocTrimmer(
  () => nativeCache ?? '',
  (why) => hostLog({ msg: why }),
  (released) =>
    hostLog({ msg: 'no node: malloc trimmed', released, rss: process.memoryUsage.rss() }),
);
// Once it has had no node for a while, the host gives back what its nodes' work left resident:
// V8's pages, then the C library's (an idle host after 200 nodes: 74 → 64 MB PSS).
const release = hostIdleRelease({
  busy: () => held.size > 0 || closing,
  onRelease: (ms) => {
    hostLog({ msg: 'no node: heap released', ms: Math.round(ms), rss: process.memoryUsage.rss() });
    if (nativeCache !== null) trim();
  },
});

readLines(process.stdin, (line) => {
  const command = parseObject(line);
  if (command === null) hostLog({ msg: 'a command on stdin is no JSON object' });
  else if ('launch' in command) launch(command.launch);
  else if (typeof command.stop === 'string') stop(command.stop, Number(command.grace_ms) || 0);
  else if (typeof command.reconfine === 'string') reconfine(command.reconfine, command);
  else hostLog({ msg: 'an unknown command on stdin' });
});
process.stdin.once('end', () => void shutDown());
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutDown());

function launch(message: unknown): void {
  const parsed = brokerLaunchSchema.safeParse(message, JITLESS);
  const id = (message as { node_id?: unknown } | null)?.node_id;
  if (!parsed.success) {
    // Never echo the input: it holds the token and the model key.
    const error = z.prettifyError(parsed.error);
    if (typeof id !== 'string' || held.has(id)) {
      hostLog({ msg: 'bad launch message on stdin', error });
      return;
    }
    report({ log: line(id, { msg: 'bad launch message on stdin', error }), node_id: id });
    report({ ended: id, kind: 'bad_launch' });
    return;
  }
  const nodeId = parsed.data.node_id;
  const executor = parsed.data.sandbox?.host.executor;
  if (executor != null) nativeCache = dirname(executor.binary);
  if (held.has(nodeId) || closing) {
    hostLog({ msg: 'a launch refused: its node runs here already, or the host is closing' });
    return;
  }
  const loop = startNodeLoop(parsed.data, (fields) =>
    report({ log: line(nodeId, fields), node_id: nodeId }),
  );
  const entry: Held = { loop, reported: false };
  held.set(nodeId, entry);
  void loop.ended.then((exit) => ended(nodeId, entry, exit?.kind ?? 'failed'));
}

function stop(nodeId: string, graceMs: number): void {
  const entry = held.get(nodeId);
  if (entry === undefined || entry.timer !== undefined) return;
  entry.loop.abort('the node was stopped');
  if (graceMs <= 0) void drop(nodeId, entry);
  else entry.timer = setTimeout(() => void drop(nodeId, entry), graceMs);
}

const reconfineSchema = brokerLaunchSchema.pick({ env: true, sandbox: true });

function reconfine(nodeId: string, command: Record<string, unknown>): void {
  const parsed = reconfineSchema.safeParse({ env: command.env, sandbox: command.sandbox }, JITLESS);
  const entry = held.get(nodeId);
  if (!parsed.success) {
    // Never echo it (it holds env values). Its old sandbox must not serve on: its commands are
    // refused until it is launched again.
    hostLog({ msg: 'bad reconfine on stdin', error: z.prettifyError(parsed.error) });
    entry?.loop.reconfine({ env: {} });
  } else entry?.loop.reconfine(parsed.data);
}

/** Cut off: nothing more is recorded for the node; its slot is free once its parts are closed. */
async function drop(nodeId: string, entry: Held): Promise<void> {
  if (entry.reported) return;
  await entry.loop.drop();
  ended(nodeId, entry, 'dropped');
}

function ended(nodeId: string, entry: Held, kind: HostEnd): void {
  if (entry.reported) return;
  entry.reported = true;
  clearTimeout(entry.timer);
  if (held.get(nodeId) === entry) held.delete(nodeId);
  report({ ended: nodeId, kind });
  if (held.size === 0) release.idle();
}

async function shutDown(): Promise<void> {
  if (closing) return;
  closing = true;
  release.close();
  await Promise.all([...held].map(([id, entry]) => drop(id, entry)));
  channel.end(() => process.exit(0));
}

function report(message: HostReport): void {
  channel.write(`${JSON.stringify(message)}\n`);
}

function line(nodeId: string, fields: Record<string, unknown>): Record<string, unknown> {
  return { time: new Date().toISOString(), pid: process.pid, node_id: nodeId, ...fields };
}

/** A line of the host's own (no node's): on stderr, which the supervisor keeps in its log. */
function hostLog(fields: Record<string, unknown>): void {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), pid: process.pid, ...fields })}\n`,
  );
}

/** The fd is a pipe or socket (what the supervisor gives), not absent nor a stray file. */
function isChannel(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isSocket() || stat.isFIFO();
  } catch {
    return false;
  }
}
