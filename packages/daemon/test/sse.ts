import type { Response } from 'undici';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Reads SSE frames from a response body until `until` says stop, the stream ends or time runs out. */
export async function readFrames(
  res: Response,
  until: (frames: SseFrame[]) => boolean,
  timeoutMs = 5_000,
): Promise<{ frames: SseFrame[]; ended: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const frames: SseFrame[] = [];
  let buffer = '';
  let ended = false;
  const deadline = Date.now() + timeoutMs;
  while (!until(frames) && Date.now() < deadline) {
    const next = await Promise.race([
      reader.read(),
      new Promise<null>((r) => setTimeout(() => r(null), Math.max(1, deadline - Date.now()))),
    ]);
    if (next === null) break;
    if (next.done) {
      ended = true;
      break;
    }
    buffer += decoder.decode(next.value, { stream: true });
    let cut = buffer.indexOf('\n\n');
    while (cut !== -1) {
      const frame = parseFrame(buffer.slice(0, cut));
      // The `: open` every stream starts with (a first byte for proxies) is no frame to count.
      if (!(frame.comment === 'open' && frame.id === undefined)) frames.push(frame);
      buffer = buffer.slice(cut + 2);
      cut = buffer.indexOf('\n\n');
    }
  }
  if (!ended) await reader.cancel().catch(() => {});
  return { frames, ended };
}

function parseFrame(text: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of text.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    const [, field, value] = line.match(/^(id|event|data): ?(.*)$/) ?? [];
    if (field !== undefined) frame[field as 'id' | 'event' | 'data'] = value ?? '';
  }
  return frame;
}

export const seqs = (frames: SseFrame[]) =>
  frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));

/** An event as `GET /v1/events` sends it; `payload` typed by the test that reads it. */
export interface LoggedEvent<P = Record<string, unknown>> {
  seq: number;
  kind: string;
  subject_id: string | null;
  payload: P;
  created_at: string;
}

/**
 * The events committed so far, oldest first (`GET /v1/events?follow=false`, the owner's), of
 * `kinds` (comma-separated) when given.
 */
export async function eventBacklog<P = Record<string, unknown>>(
  call: (path: string) => Promise<Response | globalThis.Response>,
  kinds?: string,
): Promise<LoggedEvent<P>[]> {
  const res = await call(`/v1/events?follow=false${kinds === undefined ? '' : `&kinds=${kinds}`}`);
  const { frames } = await readFrames(res as Response, () => false, 10_000);
  return frames.filter((f) => f.data !== undefined).map((f) => JSON.parse(f.data!));
}
