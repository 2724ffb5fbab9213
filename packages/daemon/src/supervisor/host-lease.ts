/**
 * A node's lease on an agent host (`./agent-host.ts`): the `BrokerProcess` the rest of the
 * supervisor uses, backed by one loop in a shared process. `pid` is the host's; `exited` settles
 * when the host reports the node's loop ended, or when the host exits (a crash, to this node);
 * `stop(grace)` asks the host to abort the loop and drop it once the grace runs out, and kills
 * the host whole when it does not confirm within grace + margin (its other nodes then relaunch
 * as after a crash): a stop never waits on a host that does not answer.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { HostCommand } from '../broker/host-protocol.ts';
import type { BrokerLaunch } from '../ports.ts';
import type { BrokerExit, BrokerProcess } from './broker-process.ts';

/** What the host does for one lease: its node's log lines, and its end. */
export interface LeaseSink {
  log(text: string): void;
  end(exit: BrokerExit): void;
}

export interface LeaseLink {
  pid: number;
  exited: Promise<BrokerExit>;
  alive(): boolean;
  marginMs: number;
  send(command: HostCommand): void;
  /** The lease takes a slot before its launch. */
  hold(sink: LeaseSink): void;
  /** Launched: the host's reports for `nodeId` go to `sink`. */
  bind(nodeId: string, sink: LeaseSink): void;
  /** Ended before its launch. */
  release(sink: LeaseSink): void;
  kill(): Promise<BrokerExit>;
}

/** A node's end as the host reported it, as a process exit reads in the broker's record. */
export function exitOf(kind: string): BrokerExit {
  if (kind === 'dropped') return { code: null, signal: 'SIGKILL' };
  if (kind === 'bad_launch') return { code: 2, signal: null };
  return { code: 0, signal: null };
}

export function createLease(link: LeaseLink): BrokerProcess {
  let settle: (exit: BrokerExit) => void = () => {};
  const exited = new Promise<BrokerExit>((resolve) => {
    settle = resolve;
  });
  let ended = false;
  let log: WriteStream | null = null;
  const sink: LeaseSink = {
    log: (text) => log?.write(text),
    end(exit) {
      if (ended) return;
      ended = true;
      log?.end();
      settle(exit);
    },
  };
  link.hold(sink);

  let nodeId: string | null = null;
  const launch = (message: BrokerLaunch, logFd: number) => {
    if (nodeId !== null || ended) throw new TypeError(`a lease on host ${link.pid} was used`);
    log = createWriteStream('', { fd: logFd });
    log.on('error', () => {});
    nodeId = message.node_id;
    link.bind(nodeId, sink);
    link.send({ launch: message });
  };

  let stopping: Promise<BrokerExit> | null = null;
  const stop = (graceMs: number) => {
    stopping ??= (async () => {
      if (nodeId === null) {
        // Never handed a node: nothing of it runs.
        link.release(sink);
        sink.end({ code: null, signal: 'SIGKILL' });
        return exited;
      }
      if (!ended) link.send({ stop: nodeId, grace_ms: Math.max(0, graceMs) });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), Math.max(0, graceMs) + link.marginMs);
      });
      const exit = await Promise.race([exited, late]);
      clearTimeout(timer);
      if (exit !== null) return exit;
      // The host did not answer in time: it goes whole, and this node's lease with it.
      await link.kill();
      return exited;
    })();
    return stopping;
  };

  return {
    pid: link.pid,
    exited,
    get alive() {
      return !ended && link.alive();
    },
    launch,
    stop,
    reconfine(parts) {
      if (nodeId !== null && !ended) link.send({ reconfine: nodeId, ...parts });
    },
  };
}
