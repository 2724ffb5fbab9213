/**
 * The wire between a node's sandbox and its executor (sandbox/executor-wire.ts): frames read
 * whole however the pipe splits them, and anything that is no frame the executor writes (what
 * something in the sandbox might write to its channel) refused at its header, before the reader
 * holds more of it.
 */
import { describe, expect, it } from 'vitest';
import {
  CHUNK,
  commandFrame,
  type ExecutorEvent,
  frameReader,
  HEADER,
} from '../../src/sandbox/executor-wire.ts';

function frame(type: string, id: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(HEADER);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(id, 1);
  header.writeUInt32LE(body.length, 5);
  return Buffer.concat([header, body]);
}

function end(code: number, signal: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeInt32LE(code, 0);
  body.writeInt32LE(signal, 4);
  return body;
}

describe('the executor wire', () => {
  it('reads frames split anywhere across chunks', () => {
    const events: ExecutorEvent[] = [];
    const reader = frameReader((e) => events.push(e));
    const all = Buffer.concat([
      frame('Y', 0),
      frame('O', 1, Buffer.from('out')),
      frame('E', 1, Buffer.from('err')),
      frame('X', 1, end(3, 0)),
      frame('X', 2, end(-1, 9)),
      frame('F', 3, Buffer.from('spawn /bin/sh ENOENT')),
    ]);
    for (let i = 0; i < all.length; i += 5) expect(reader.push(all.subarray(i, i + 5))).toBe(true);
    expect(events).toEqual([
      { kind: 'ready' },
      { kind: 'out', id: 1, stream: 'stdout', data: Buffer.from('out') },
      { kind: 'out', id: 1, stream: 'stderr', data: Buffer.from('err') },
      { kind: 'end', id: 1, code: 3, signal: null },
      { kind: 'end', id: 2, code: null, signal: 'SIGKILL' },
      { kind: 'failed', id: 3, message: 'spawn /bin/sh ENOENT' },
    ]);
  });

  it('refuses what the executor never writes', () => {
    const refused = [
      Buffer.from('{"id":1,"o":"aGk="}\n'), // a line of some other wire
      frame('O', 1, Buffer.alloc(0)), // empty output
      frame('X', 1, Buffer.alloc(4)), // an end of the wrong size
      frame('Y', 7), // ready with an id
      frame('C', 1, Buffer.alloc(8)), // a command: the broker's to send, not to read
    ];
    for (const bytes of refused) {
      const reader = frameReader(() => {});
      expect(reader.push(bytes)).toBe(false);
      // Refused for good: nothing read after it.
      expect(reader.push(frame('Y', 0))).toBe(false);
    }
  });

  it('refuses an over-long frame at its header, before its body comes', () => {
    const reader = frameReader(() => {});
    const header = frame('O', 1, Buffer.alloc(0));
    header.writeUInt32LE(CHUNK + 1, 5);
    expect(reader.push(header)).toBe(false);
  });

  it('frames a command, and refuses one holding a NUL byte', () => {
    const f = commandFrame(7, { argv: ['/bin/sh', '-c', 'true'], cwd: '/tmp', env: { A: 'b' } });
    expect(Buffer.isBuffer(f)).toBe(true);
    const bytes = f as Buffer;
    expect(bytes.subarray(0, 1).toString()).toBe('C');
    expect(bytes.readUInt32LE(1)).toBe(7);
    expect(bytes.readUInt32LE(HEADER)).toBe(3);
    expect(bytes.readUInt32LE(HEADER + 4)).toBe(1);
    expect(bytes.subarray(HEADER + 8).toString()).toBe('/tmp\0/bin/sh\0-c\0true\0A=b\0');
    expect(commandFrame(8, { argv: ['/bin/sh', '-c', 'a\0b'], cwd: '/', env: {} })).toMatch(
      /NUL byte/,
    );
  });
});
