/** Fixtures shared by the kit's tests: runtime-neutral (no `node:` imports). */
import { readTar } from '../src/archive/index.ts';
import {
  type CommandDefinition,
  definePlugin,
  type Manifest,
  type PluginDefinition,
  PluginError,
} from '../src/index.ts';

export const ORIGIN = 'http://127.0.0.1';

/** Collects warnings instead of printing them. */
export function memoryLogger(): { warnings: string[]; warn(message: string): void } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}

/** A plugin `acme` with one group `g` holding `commands`: for tests about a single command. */
export function acmeGroup(commands: Record<string, CommandDefinition>) {
  return definePlugin({ name: 'acme', description: 'd', groups: { g: { commands } } });
}

/** The plugin most tests drive: `acme` with groups `tickets` and `admin`. */
export function acmeDefinition(overrides: Partial<PluginDefinition> = {}) {
  return definePlugin({
    name: 'acme',
    description: 'Acme ticket tracker',
    groups: {
      tickets: {
        description: 'Read and write tickets',
        commands: {
          create: {
            description: 'Create a ticket',
            input: {
              type: 'object',
              properties: {
                title: { type: 'string', minLength: 1 },
                labels: { type: 'array', items: { type: 'string' } },
              },
              required: ['title'],
              additionalProperties: false,
            },
            handler: async (input, ctx) => ({
              id: 'T-1',
              title: input.title,
              version: ctx.version,
              request_id: ctx.requestId,
            }),
          },
          echo: {
            description: 'Answer the input and the caller',
            handler: (input, ctx) => ({ input, caller: ctx.caller ?? null }),
          },
          watch: {
            description: 'Stream ticket events',
            async *handler(input) {
              const count = typeof input.count === 'number' ? input.count : 2;
              for (let i = 0; i < count; i++) yield { seq: i };
            },
          },
          refuse: {
            description: 'Always refuses',
            handler: () => {
              throw new PluginError(409, 'ticket_locked', 'The ticket is locked', {
                field: 'id',
                received: 'T-9',
              });
            },
          },
          crash: {
            description: 'Fails unexpectedly',
            handler: () => {
              throw new Error('db password is hunter2');
            },
          },
        },
      },
      admin: {
        commands: {
          purge: { description: 'Delete everything', handler: () => ({ purged: true }) },
        },
      },
    },
    ...overrides,
  });
}

export function post(path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

export function get(path: string, headers: Record<string, string> = {}): Request {
  return new Request(`${ORIGIN}${path}`, { headers });
}

/** The `plugin.json` of an archive response. */
export async function manifestOf(response: Response): Promise<Manifest> {
  const entries = readTar(new Uint8Array(await response.arrayBuffer()));
  const entry = entries.find((e) => e.name === 'plugin.json');
  if (entry === undefined) throw new Error('archive has no plugin.json');
  return JSON.parse(new TextDecoder().decode(entry.data)) as Manifest;
}

export async function pathsOf(response: Response): Promise<string[]> {
  return (await manifestOf(response)).commands.map((c) => c.rest.path);
}

/** The `error` member of an error envelope. */
export async function errorOf(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as { error: Record<string, unknown> };
  return body.error;
}

/** Splits an SSE body into its events. */
export function sseEvents(text: string): { event: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        if (line.startsWith('data: ')) data = line.slice(6);
      }
      return { event, data: JSON.parse(data) as unknown };
    });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
