/**
 * The shapes a plugin author writes (`PluginDefinition` and its parts), what a command handler
 * receives (`CommandContext`, `Caller`), the handler options, and the `plugin.json` manifest the
 * archive carries.
 */

/** A JSON Schema (draft 2020-12) object describing a command's input. */
export type JsonSchema = { [keyword: string]: unknown };

/** A parsed JSON object: a command's input and a non-streaming command's result. */
export type JsonObject = { [key: string]: unknown };

/** The verified directory token, in camelCase, plus the request id (directory mode only). */
export interface Caller {
  sub: string;
  grantee: string;
  clientId: string;
  /** The token's `scope` claim as a list (RFC 8693 §4.2 sends it space-separated). */
  scope: string[];
  /** For the plugin's audit only: the kit authorizes nothing on it. */
  initiatingApp: string;
  /** For the plugin's audit only (RFC 8693 §4.1 actor claim, e.g. `{ sub: <node id> }`). */
  act: { sub: string; [claim: string]: unknown };
  jti: string;
  /** The `Svc-Request-Id` header of the call. */
  requestId: string;
  runId?: string;
}

export interface CommandContext {
  request: Request;
  /** Aborts when the request is aborted or the client stops reading a stream. */
  signal: AbortSignal;
  /** The caller's `Svc-Request-Id`, or the one generated for this request. */
  requestId: string;
  /** The major this call was routed to, or `null` for an unversioned plugin. */
  version: number | null;
  /** Present under directory authentication only. */
  caller?: Caller;
}

/** A non-streaming command answers a JSON object; a streaming one an async iterable of items. */
export type CommandResult = JsonObject | AsyncIterable<unknown>;

export interface CommandDefinition {
  /** What the command does, for the agents that call it as a tool; default `""`. */
  description?: string;
  /** JSON Schema (draft 2020-12) of the request body; defaults to `{ "type": "object" }`. */
  input?: JsonSchema;
  /** Declared in the archive; defaults to `true` for an `async function*` handler. */
  streaming?: boolean;
  // A method signature so a handler may annotate a narrower input type (method parameters are
  // checked bivariantly).
  handler(input: JsonObject, ctx: CommandContext): CommandResult | Promise<CommandResult>;
}

export interface GroupDefinition {
  description?: string;
  commands: { readonly [command: string]: CommandDefinition };
}

export interface PluginDefinition {
  name: string;
  /** The major this definition serves; omit for an unversioned plugin. */
  version?: number;
  /** Default `""`. */
  description?: string;
  groups: { readonly [group: string]: GroupDefinition };
}

/**
 * Every option also accepts `undefined`, read as absent, so a value that may be missing passes
 * straight in: `{ token: process.env.ACME_TOKEN }`.
 */
export interface FetchHandlerOptions {
  /** Shared-token mode: every archive and command request carries `Authorization: Bearer <token>`. */
  token?: string | undefined;
  /** Directory mode: `issuer` serves `/.well-known/jwks.json`; `audience` is this endpoint as registered. */
  auth?: { issuer: string; audience: string } | undefined;
  /** Full public URL including the mount path, when `request.url` is not it; never with `/v<N>`. */
  baseUrl?: string | undefined;
  /** Largest accepted request body; default 1 MiB. */
  maxBodyBytes?: number | undefined;
  /** Receives the one warning of an unauthenticated handler and failures of command handlers. */
  logger?: { warn(message: string): void } | undefined;
  /** Key-set fetching of directory mode (for tests and development). */
  jwks?:
    | {
        /**
         * Least time between the starts of two key-set fetch attempts, failed ones included: an
         * unknown `kid` or a stale cache refetches only once this has passed. The first good
         * load does not start it, so a key rotated in right after is picked up; default 30 s.
         */
        cooldownMs?: number | undefined;
        /**
         * A key-set fetch (response and body) slower than this fails; the request then goes on
         * with the keys already held, or gets 401 when there are none; default 2 s.
         */
        timeoutMs?: number | undefined;
        /**
         * Keys older than this are refetched when the cooldown allows; if that fails, the old keys
         * stay in use; default 10 min.
         */
        cacheMaxAgeMs?: number | undefined;
        fetch?: ((input: string, init: RequestInit) => Promise<Response>) | undefined;
      }
    | undefined;
}

export type AuthMode = 'none' | 'token' | 'directory';

/** One command as `plugin.json` declares it. */
export interface ManifestCommand {
  group: string;
  name: string;
  description: string;
  input: JsonSchema;
  streaming: boolean;
  /** `<plugin>:<group>`: the scope a directory token needs to call it. */
  scope: string;
  /** `path` is the full public path: mount + (`/v<N>`) + `/<plugin>/<group>/<command>`. */
  rest: { method: 'POST'; path: string };
}

/** The content of `plugin.json` inside the archive. */
export interface Manifest {
  name: string;
  /** The major this archive describes, or `null` for an unversioned plugin. */
  major: number | null;
  description: string;
  auth: AuthMode;
  groups: { name: string; description: string; scope: string }[];
  commands: ManifestCommand[];
}
