import { useEffect, useState } from 'preact/hooks';
import { viewerHeaders } from './api.ts';

/** The turn the model is writing now, as far as it has written it. */
export interface LiveTurn {
  index: number;
  text: string;
}

export interface LiveText {
  /** `open` while the daemon relays the node's broker; `off` when there is nothing to follow. */
  state: 'off' | 'connecting' | 'open';
  turn: LiveTurn | null;
}

/**
 * Follows `GET /viewer/live/nodes/{id}` (packages/daemon/src/http/viewer-live.ts) while the node
 * runs: the text of the turn in flight as the model writes it, delta by delta. A fetch, for the
 * page key header (as `live.ts`). The node's events still bring each turn once it is recorded;
 * this only fills the time before.
 */
export function useLiveText(id: string, running: boolean): LiveText {
  const [live, setLive] = useState<LiveText>({ state: 'off', turn: null });
  useEffect(() => {
    if (!running) {
      setLive((l) => (l.state === 'off' ? l : { state: 'off', turn: l.turn }));
      return;
    }
    const stop = new AbortController();
    const onFrame = (event: string, data: string) => {
      if (event === 'turn.started') {
        const { index } = JSON.parse(data) as { index: number };
        setLive({ state: 'open', turn: { index, text: '' } });
      } else if (event === 'text.delta') {
        const { index, delta } = JSON.parse(data) as { index: number; delta: string };
        setLive((l) => ({
          state: 'open',
          turn: { index, text: (l.turn?.index === index ? l.turn.text : '') + delta },
        }));
      }
    };
    // One request: the daemon waits out a just-launched broker's socket itself, and answers 204
    // when there is nothing to follow (the node stopped running meanwhile).
    const follow = async () => {
      setLive((l) => ({ ...l, state: 'connecting' }));
      const res = await fetch(`/viewer/live/nodes/${encodeURIComponent(id)}`, {
        headers: viewerHeaders(),
        credentials: 'same-origin',
        signal: stop.signal,
      });
      if (res.status === 200 && res.body !== null) {
        setLive((l) => ({ ...l, state: 'open' }));
        await readFrames(res.body, onFrame);
      }
      if (!stop.signal.aborted) setLive((l) => ({ ...l, state: 'off' }));
    };
    follow().catch(() => {
      if (!stop.signal.aborted) setLive((l) => ({ ...l, state: 'off' }));
    });
    return () => stop.abort();
  }, [id, running]);
  return live;
}

/** Reads SSE frames (`event:` and `data:` lines, a blank line between) until the body ends. */
async function readFrames(
  body: ReadableStream<Uint8Array>,
  onFrame: (event: string, data: string) => void,
): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    pending += decoder.decode(value, { stream: true });
    for (let at = pending.indexOf('\n\n'); at !== -1; at = pending.indexOf('\n\n')) {
      const frame = pending.slice(0, at);
      pending = pending.slice(at + 2);
      let event = '';
      let data = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (event === 'end') return;
      if (event !== '' && data !== '') onFrame(event, data);
    }
  }
}
