/**
 * The channel between a node's sandbox session (session.ts) and the executor in its sandbox,
 * whichever way the sandbox was started: by the host's launcher (launcher.ts: a socket the
 * executor connected to), or by the host itself (Node's `spawn`: the child's pipes).
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import type { Launched } from './launcher.ts';

export interface SessionChannel {
  write(data: Buffer): void;
  /** Each chunk the executor wrote. */
  onData(fn: (data: Buffer) => void): void;
  /** Once, when the sandbox ended or could not start, with why. */
  onEnd(fn: (why: string) => void): void;
  /** Whether it keeps this process running (while a command runs) or not (idle). */
  hold(on: boolean): void;
  /** Ends the sandbox and everything in it. */
  kill(): void;
}

const ENDED = 'the sandbox of this node ended';

export function childChannel(child: ChildProcessByStdio<Writable, Readable, null>): SessionChannel {
  const stdout = child.stdout as Readable & { ref(): void; unref(): void };
  return {
    write: (data) => child.stdin.write(data),
    onData: (fn) => child.stdout.on('data', fn),
    onEnd(fn) {
      let told = false;
      const end = (why: string) => {
        if (!told) fn(why);
        told = true;
      };
      child.once('close', () => end(ENDED));
      child.once('error', (error) => end(error.message));
      child.stdin.on('error', () => end(ENDED));
    },
    hold(on) {
      if (on) {
        child.ref();
        stdout.ref();
      } else {
        child.unref();
        stdout.unref();
      }
    },
    kill: () => child.kill('SIGKILL'),
  };
}

export function launchedChannel(launched: Launched): SessionChannel {
  let socket: Socket | null = null;
  let held = true;
  const dataFns: ((data: Buffer) => void)[] = [];
  const endFns: ((why: string) => void)[] = [];
  let ended: string | null = null;
  const end = (why: string) => {
    if (ended !== null) return;
    ended = why;
    for (const fn of endFns) fn(why);
  };
  launched.channel.then(
    (s) => {
      socket = s;
      if (!held) s.unref();
      s.on('data', (data: Buffer) => {
        for (const fn of dataFns) fn(data);
      });
      s.once('close', () => end(ENDED));
      s.on('error', () => end(ENDED));
      s.resume();
    },
    (error: Error) => end(error.message),
  );
  return {
    write: (data) => {
      socket?.write(data);
    },
    onData: (fn) => {
      dataFns.push(fn);
    },
    onEnd: (fn) => {
      if (ended !== null) fn(ended);
      else endFns.push(fn);
    },
    hold(on) {
      held = on;
      if (on) socket?.ref();
      else socket?.unref();
    },
    kill: () => {
      launched.kill();
      socket?.destroy();
    },
  };
}
