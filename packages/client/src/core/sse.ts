/**
 * A parser for `text/event-stream` following the WHATWG HTML "Server-sent events" interpretation
 * rules (§9.2.6): lines end in CRLF, LF or CR; one leading BOM is skipped; `:` starts a comment;
 * `data` lines accumulate; `id` sets the last event id (kept across events and reconnects);
 * `retry` sets the reconnection time; an event is dispatched at a blank line, and a partial
 * event cut off by the end of the stream is dropped.
 */

export interface ServerSentEvent {
  /** The `event` field, or `"message"` when absent. */
  event: string;
  data: string;
  /** The last event id at dispatch time (may come from an earlier event). */
  id: string;
}

export class SSEParser {
  /** The last event id of a dispatched event: what `Last-Event-ID` must carry on reconnect. */
  lastEventId: string;
  /** The reconnection time in ms, once the server sent a valid `retry` field. */
  retry: number | undefined;

  #buffer = '';
  #started = false;
  #skipLF = false;
  #data: string[] = [];
  #event = '';
  #id: string;

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
    this.#id = lastEventId;
  }

  /** Feeds decoded text; returns the events completed by it, in order. */
  feed(chunk: string): ServerSentEvent[] {
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CR ending the previous chunk may be the first half of a CRLF.
    if (this.#skipLF && text.length > 0) {
      if (text[0] === '\n') text = text.slice(1);
      this.#skipLF = false;
    }
    const events: ServerSentEvent[] = [];
    const buffer = this.#buffer + text;
    let start = 0;
    // The kept remainder holds no line break, so scanning resumes where it ends.
    for (let i = this.#buffer.length; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\r' && c !== '\n') continue;
      this.#line(buffer.slice(start, i), events);
      if (c === '\r') {
        if (i + 1 === buffer.length) this.#skipLF = true;
        else if (buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.#buffer = buffer.slice(start);
    return events;
  }

  #line(line: string, events: ServerSentEvent[]): void {
    if (line === '') {
      this.#dispatch(events);
      return;
    }
    if (line[0] === ':') return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value[0] === ' ') value = value.slice(1);
    switch (field) {
      case 'event':
        this.#event = value;
        break;
      case 'data':
        this.#data.push(value);
        break;
      case 'id':
        if (!value.includes('\0')) this.#id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
    }
  }

  #dispatch(events: ServerSentEvent[]): void {
    this.lastEventId = this.#id;
    if (this.#data.length > 0) {
      events.push({ event: this.#event || 'message', data: this.#data.join('\n'), id: this.#id });
    }
    this.#data = [];
    this.#event = '';
  }
}
