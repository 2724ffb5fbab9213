import { type Palette, palette, wantsColor } from './color.ts';
import { type Filter, jqLines } from './jq.ts';

/** Where the CLI writes; a seam so tests can run commands in-process. */
export interface Io {
  stdout(text: string): void;
  /** Bytes as they are (`svc files read` of a binary file); text-only seams may leave it out. */
  stdoutBytes?(bytes: Uint8Array): void;
  stderr(text: string): void;
  stdoutIsTTY: boolean;
  /** Whether stderr is a terminal; progress written there is coloured only then. */
  stderrIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  return {
    stdout: (text) => void process.stdout.write(text),
    stdoutBytes: (bytes) => void process.stdout.write(bytes),
    stderr: (text) => void process.stderr.write(text),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
  };
}

/** Prints a command's result either as JSON (`--json`) or as text for a person. */
export class Printer {
  readonly json: boolean;
  readonly colors: Palette;
  /** The palette of what goes to stderr (`note`), which may be redirected apart from stdout. */
  readonly noteColors: Palette;
  readonly io: Io;
  /** `--jq`: what of each JSON answer is printed (`--jq` implies `--json`). */
  readonly #jq: Filter | undefined;

  constructor(io: Io, json: boolean, jq?: Filter) {
    this.io = io;
    this.json = json || jq !== undefined;
    this.#jq = jq;
    this.colors = palette(!json && wantsColor(io.stdoutIsTTY, io.env));
    this.noteColors = palette(!json && wantsColor(io.stderrIsTTY, io.env));
  }

  /** The JSON value itself under `--json`, else what `human` renders. */
  result(value: unknown, human: (colors: Palette) => string): void {
    if (this.#jq !== undefined) this.#select(value);
    else if (this.json) this.line(JSON.stringify(value, null, 2));
    else this.line(human(this.colors));
  }

  /** One compact JSON document per line (NDJSON) for streams under `--json`. */
  record(value: unknown, human: (colors: Palette) => string): void {
    if (this.#jq !== undefined) this.#select(value);
    else this.line(this.json ? JSON.stringify(value) : human(this.colors));
  }

  #select(value: unknown): void {
    for (const text of jqLines(this.#jq!, value)) this.line(text);
  }

  line(text: string): void {
    this.io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Notes for a person go to stderr, so stdout stays clean for pipes. */
  note(text: string): void {
    this.io.stderr(`${text}\n`);
  }
}
