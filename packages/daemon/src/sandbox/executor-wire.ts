/**
 * The wire between a node's sandbox (session.ts) and its executor (executor.c, or the Node
 * program of session-executor.ts): frames of a 9-byte header, a type byte then the command's id
 * and the body's length (u32, little-endian), and the body. Binary, so output travels as it is
 * (no base64) and the C executor reads it with no JSON parser.
 *
 * In: `C` a command (body: u32 argc, u32 envc, then cwd, argv and env as `K=V`, each NUL-ended),
 * `K` a kill of its process group (no body). Out: `Y` ready (id 0, no body), `O` / `E` a chunk of
 * its stdout / stderr (at most `CHUNK` bytes), `X` its end (i32 code, -1 when signalled; i32
 * signal number, 0 when none), `F` it could not start (a message).
 */
import { constants } from 'node:os';

export const HEADER = 9;
/** The largest output chunk the executor sends. */
export const CHUNK = 65536;
/** Bytes of each stream a command's result keeps; one more tells it was cut. */
export const KEEP = 1024 * 1024 + 1;
/** The largest command frame: past it, a command could not start on Linux anyway (E2BIG). */
export const MAX_FRAME = 16 * 1024 * 1024;
const MAX_MESSAGE = 1024;

export type ExecutorEvent =
  | { kind: 'ready' }
  | { kind: 'out'; id: number; stream: 'stdout' | 'stderr'; data: Buffer }
  | { kind: 'end'; id: number; code: number | null; signal: string | null }
  | { kind: 'failed'; id: number; message: string };

/** A frame of this wire's shape (the launcher's, launcher.ts, has it too). */
export function frame(type: string, id: number, body: Buffer): Buffer {
  const header = Buffer.alloc(HEADER);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(id, 1);
  header.writeUInt32LE(body.length, 5);
  return body.length === 0 ? header : Buffer.concat([header, body]);
}

/**
 * The frame of command `id`, or why it cannot be sent: a NUL byte has no place in an argument,
 * a path or the environment (Node's `spawn` refuses it too).
 */
export function commandFrame(
  id: number,
  input: { argv: readonly string[]; cwd: string; env: Record<string, string> },
): Buffer | string {
  const env = Object.entries(input.env).map(([k, v]) => `${k}=${v}`);
  const strings = [input.cwd, ...input.argv, ...env];
  if (strings.some((s) => s.includes('\0'))) {
    return 'its command, cwd or environment holds a NUL byte';
  }
  const counts = Buffer.alloc(8);
  counts.writeUInt32LE(input.argv.length, 0);
  counts.writeUInt32LE(env.length, 4);
  const body = Buffer.concat([counts, Buffer.from(`${strings.join('\0')}\0`, 'utf8')]);
  if (body.length > MAX_FRAME) return 'its command and environment are too long (E2BIG)';
  return frame('C', id, body);
}

export function killFrame(id: number): Buffer {
  return frame('K', id, Buffer.alloc(0));
}

const SIGNALS = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]));

/**
 * Reads the executor's frames as they come. `push` returns false once what came is no frame the
 * executor writes (something in the sandbox writing to its channel): the caller ends the sandbox.
 * What it buffers is bounded by one frame's header and body.
 */
export function frameReader(onEvent: (event: ExecutorEvent) => void) {
  let chunks: Buffer[] = [];
  let held = 0;
  let broken = false;
  const parse = (f: Buffer, type: string, id: number, body: Buffer): boolean => {
    if (type === 'Y') {
      if (id !== 0 || body.length !== 0) return false;
      onEvent({ kind: 'ready' });
      return true;
    }
    if (type === 'O' || type === 'E') {
      if (body.length === 0 || body.length > CHUNK) return false;
      onEvent({ kind: 'out', id, stream: type === 'O' ? 'stdout' : 'stderr', data: body });
      return true;
    }
    if (type === 'X') {
      if (body.length !== 8) return false;
      const code = f.readInt32LE(HEADER);
      const signal = f.readInt32LE(HEADER + 4);
      onEvent({
        kind: 'end',
        id,
        code: code < 0 ? null : code,
        signal: signal === 0 ? null : (SIGNALS.get(signal) ?? `SIG${signal}`),
      });
      return true;
    }
    if (type === 'F') {
      if (body.length > MAX_MESSAGE) return false;
      onEvent({ kind: 'failed', id, message: body.toString('utf8') });
      return true;
    }
    return false;
  };
  return {
    push(data: Buffer): boolean {
      if (broken) return false;
      chunks.push(data);
      held += data.length;
      while (held >= HEADER) {
        if (chunks[0]!.length < HEADER) chunks = [Buffer.concat(chunks, held)];
        const head = chunks[0]!;
        const length = head.readUInt32LE(5);
        // Checked before it is waited for: a length no frame has never makes the reader hold more.
        if (length > CHUNK) {
          broken = true;
          return false;
        }
        if (held < HEADER + length) return true;
        const all = chunks.length === 1 ? head : Buffer.concat(chunks, held);
        const f = all.subarray(0, HEADER + length);
        if (!parse(f, String.fromCharCode(f[0]!), f.readUInt32LE(1), f.subarray(HEADER))) {
          broken = true;
          return false;
        }
        const rest = all.subarray(HEADER + length);
        chunks = rest.length === 0 ? [] : [rest];
        held = rest.length;
      }
      return true;
    },
  };
}
