/**
 * The bounds the client reads at run time, kept apart from the zod schemas that enforce them: a
 * module that needs only a number then loads neither zod nor any schema, which is what keeps
 * `svc status` (the CLI's client) from building the route table's schemas at start-up. Each
 * schema module re-exports its own, so they are imported from where they always were.
 */

/**
 * The largest request body the daemon takes (docs/api-v1.md). Sized for `files.write`: its
 * largest file (1 MiB) sent as base64 in JSON is about 1.34 MiB.
 */
export const REQUEST_BODY_MAX_BYTES = 2 * 1024 * 1024;

/** The longest a bounded server wait (`…/wait`, `…/outcome/wait`) holds an answer, in seconds. */
export const WAIT_MAX_S = 300;

/** A command's time bound when the call names none. */
export const BASH_DEFAULT_TIMEOUT_MS = 60_000;
/** The longest a command may be given: the daemon, its node tools and the client agree on it. */
export const BASH_TIMEOUT_MAX_MS = 10 * 60_000;

/**
 * A plugin command, or a stream that never ends (a watch), answers with what it has after this:
 * the daemon's bound, which a client's own timeout must outlast to hear the answer.
 */
export const PROVIDER_CALL_TIMEOUT_MS = 60_000;
