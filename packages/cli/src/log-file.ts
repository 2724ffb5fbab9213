import { open, stat } from 'node:fs/promises';
import type { Palette } from './output/color.ts';

const CHUNK = 64 * 1024;

/** The last `count` lines of a file, read backwards in chunks, and the size they end at. */
export async function readLastLines(
  file: string,
  count: number,
): Promise<{ lines: string[]; size: number }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], size: 0 };
    throw err;
  }
  try {
    const { size } = await handle.stat();
    let position = size;
    let text = '';
    while (position > 0 && countNewlines(text) <= count) {
      const length = Math.min(CHUNK, position);
      position -= length;
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, position);
      text = buffer.toString('utf8') + text;
    }
    const lines = text.split('\n').filter((line) => line !== '');
    return { lines: count === 0 ? [] : lines.slice(-count), size };
  } finally {
    await handle.close();
  }
}

/**
 * Prints lines appended after `from` until the process is stopped, starting over when the file
 * is truncated. Polling (4 Hz) rather than fs.watch, which misses changes on some file systems
 * and cannot watch a file that does not exist yet.
 */
export async function followLog(
  file: string,
  from: number,
  print: (line: string) => void,
): Promise<never> {
  let offset = from;
  let partial = '';
  for (;;) {
    const size = await stat(file).then(
      (s) => s.size,
      () => 0,
    );
    if (size < offset) offset = 0;
    if (size > offset) {
      const handle = await open(file, 'r');
      try {
        const buffer = Buffer.alloc(size - offset);
        await handle.read(buffer, 0, buffer.length, offset);
        offset = size;
        const lines = (partial + buffer.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line !== '') print(line);
      } finally {
        await handle.close();
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

const PINO_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);

/** A pino JSON line as `time LEVEL message key=value…`; anything else is printed as it is. */
export function renderLogLine(line: string, colors: Palette): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return line;
    record = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString() : '-';
  const level = LEVELS[Number(record.level)] ?? String(record.level ?? '-');
  const paint =
    Number(record.level) >= 50
      ? colors.red
      : Number(record.level) >= 40
        ? colors.yellow
        : colors.dim;
  const extra = Object.entries(record)
    .filter(([key]) => !PINO_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [colors.dim(time), paint(level.padEnd(5)), String(record.msg ?? ''), ...extra].join(' ');
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
