/**
 * One part of the running daemon (its store, resources, listeners, supervisor, clock, …): built
 * by a small named function, started in the order of `startDaemon`'s list and closed in the
 * reverse, so what a part uses is up before it and still up after it.
 */
export interface Part {
  readonly name: string;
  start?(): void | Promise<void>;
  /** `graceMs`: how long requests in flight may still take (0 when the start failed). */
  close?(graceMs: number): void | Promise<void>;
}

/** `part`, checked to be one, with everything else it carries (its service, its handles). */
export function definePart<P extends Part>(part: P): P {
  return part;
}

/** The parts built so far: a start failing half-way closes exactly those. */
export function partList() {
  const parts: Part[] = [];
  return {
    add<P extends Part>(part: P): P {
      parts.push(part);
      return part;
    },
    async start(): Promise<void> {
      for (const part of parts) await part.start?.();
    },
    async close(graceMs: number): Promise<void> {
      for (const part of parts.toReversed()) await part.close?.(graceMs);
    },
  };
}
