/**
 * The route fuzz's transport and judge: one request sent exactly as written (node's http client,
 * so `..` and broken escapes reach the daemon unnormalised, unlike `fetch`), bounded in time, and
 * what its answer must be: under 500, a DESIGN §6 envelope on every 4xx, `Svc-Request-Id` on all.
 */
import { Agent, type ClientRequest, type IncomingHttpHeaders, request } from 'node:http';
import {
  buildOpenApiDocument,
  ERROR_STATUS,
  findRoute,
  isErrorCode,
  REQUEST_ID_HEADER,
  type RouteDef,
} from '@svc/protocol';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** An answer slower than this is a hang (the long polls are sent `timeout_s=0`). */
export const HANG_MS = 5_000;

export interface Sent {
  method: string;
  /** Path and query as they go on the wire. */
  target: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body; empty for an event stream, which is cut once its head arrives. */
  text: string;
  /** Set when no answer came within `HANG_MS` or the connection failed. */
  failure?: string;
}

/** A sender over one unix socket, keeping connections alive as a client would. */
export function rawSender(socketPath: string, hangMs = HANG_MS): (sent: Sent) => Promise<Answer> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return (sent) =>
    new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const done = (answer: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(answer);
      };
      const failed = (failure: string) => done({ status: 0, headers: {}, text: '', failure });
      // Node frames a GET's or a DELETE's body only with an explicit length: without one the
      // bytes would follow the head unframed and read as the next request.
      const headers =
        sent.body === undefined
          ? sent.headers
          : { ...sent.headers, 'content-length': String(Buffer.byteLength(sent.body)) };
      let req: ClientRequest;
      try {
        req = request({ socketPath, agent, method: sent.method, path: sent.target, headers });
      } catch (error) {
        // A target or header node will not send (a space, a control character): a broken case.
        return failed(`not sent: ${error}`);
      }
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          // A stream that follows never ends: its head is the answer.
          res.destroy();
          return done({ status, headers: res.headers, text: '' });
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          done({ status, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', (error) => failed(`answer cut: ${error.message}`));
      });
      // A refusal may come, and the connection close, while the body is still being written
      // (a 413 is answered before the rest is read): the answer, if it comes, is what counts.
      req.on('error', (error) => {
        setTimeout(() => failed(`connection failed: ${error.message}`), 100);
      });
      timer = setTimeout(() => {
        req.destroy();
        failed(`no answer within ${hangMs} ms`);
      }, hangMs);
      req.end(sent.body);
    });
}

/** A caller's request id the daemon echoes (docs/api-v1.md): short and inert. */
const CALLER_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const ENVELOPE_KEYS = new Set(['code', 'message', 'field', 'received', 'request_id']);

export interface JudgeOptions {
  /** The answer is to the route itself (not to a path a mangled parameter made). */
  own: boolean;
  /** The route documents 503 `not_ready` (docs/api-v1.md: a model call, a pattern check). */
  notReady: boolean;
  /**
   * The statuses the route's OpenAPI entry lists, when the request reached the route (see
   * `reachedRoute`): any other status is a gap in the contract clients are generated from.
   */
  statuses?: ReadonlySet<string>;
}

type Operation = {
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};
const paths = buildOpenApiDocument().paths as Record<string, Record<string, Operation>>;

const ajv = new Ajv2020({ strict: false });
addFormats.default(ajv);
const answerChecks = new Map<string, ValidateFunction>();

/**
 * The check of a JSON success of `route` by its OpenAPI schema, as a client generated from the
 * document (with Ajv) makes it: an answer it refuses would break that client.
 */
function documentedAnswer(route: RouteDef): ValidateFunction | undefined {
  const held = answerChecks.get(route.id);
  if (held !== undefined) return held;
  const operation = paths[route.path]?.[route.method.toLowerCase()];
  const schema = operation?.responses['200']?.content?.['application/json']?.schema;
  if (schema === undefined) return undefined;
  const check = ajv.compile(schema);
  answerChecks.set(route.id, check);
  return check;
}

/** The statuses `GET /v1/openapi.json` lists for `route`. */
export function documentedStatuses(route: RouteDef): ReadonlySet<string> {
  const operation = paths[route.path]?.[route.method.toLowerCase()];
  return new Set(Object.keys(operation?.responses ?? {}));
}

// A target the request path normalises (dot segments, backslashes) may reach another route.
const UNUSUAL_PATH = /\/\.|%2e|\\/i;

/**
 * Whether `sent` reaches `route` itself, as the daemon's router matches it: a bad parameter that
 * still fills the segment does, a mangled one that makes another path (or method) does not.
 */
export function reachedRoute(route: RouteDef, sent: Sent): boolean {
  const path = sent.target.split('?')[0] ?? '';
  if (UNUSUAL_PATH.test(path)) return false;
  const match = findRoute(sent.method, path);
  return match !== null && 'route' in match && match.route.id === route.id;
}

/**
 * What is wrong with `answer` to `sent`, a request of `route`, or an empty list: no answer in
 * time, no `Svc-Request-Id`, a 5xx the route does not document, a refusal that is no DESIGN §6
 * envelope (or breaks the conventions of docs/api-v1.md: `Allow` on a 405, `WWW-Authenticate`
 * on a 401, `x-should-retry: false` on a 409), a success to the route's own path that is not the
 * JSON its response schema describes.
 */
export function problemsOf(
  route: RouteDef,
  sent: Sent,
  answer: Answer,
  opts: JudgeOptions,
): string[] {
  if (answer.failure !== undefined) return [answer.failure];
  const requestId = answer.headers[REQUEST_ID_HEADER.toLowerCase()];
  const problems: string[] = [];
  if (typeof requestId !== 'string' || requestId === '') problems.push('no Svc-Request-Id');
  const given = sent.headers['svc-request-id'];
  if (given !== undefined && CALLER_ID.test(given) && requestId !== given) {
    problems.push(`Svc-Request-Id ${String(requestId)}, not the caller's ${given}`);
  }
  if (opts.statuses !== undefined && !opts.statuses.has(String(answer.status))) {
    problems.push(`status ${answer.status} is not in the route's OpenAPI responses`);
  }
  if (sent.method === 'HEAD') {
    if (answer.status >= 500) problems.push(`${answer.status}`);
    return problems;
  }
  const more =
    answer.status >= 400
      ? refusalProblems(route, answer, String(requestId), opts)
      : opts.own
        ? successProblems(route, answer)
        : [];
  return [...problems, ...more];
}

function refusalProblems(
  route: RouteDef,
  answer: Answer,
  requestId: string,
  opts: JudgeOptions,
): string[] {
  const { status, headers } = answer;
  let error: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(answer.text) as Record<string, unknown>;
    if (Object.keys(parsed).join() === 'error' && typeof parsed.error === 'object') {
      error = parsed.error as Record<string, unknown>;
    }
  } catch {}
  if (error === undefined) return [`${status}, not an error envelope`];
  const problems: string[] = [];
  const { code } = error;
  if (!isErrorCode(code)) problems.push(`unknown code ${String(code)}`);
  else if (ERROR_STATUS[code] !== status) problems.push(`code ${code} on a ${status}`);
  if (typeof error.message !== 'string' || error.message === '') problems.push('no message');
  if (error.request_id !== requestId) problems.push('request_id differs from the header');
  if (error.field !== undefined && typeof error.field !== 'string') problems.push('bad field');
  const extra = Object.keys(error).filter((k) => !ENVELOPE_KEYS.has(k));
  if (extra.length > 0) problems.push(`extra envelope keys ${extra.join()}`);
  if (status === 405 && headers.allow === undefined) problems.push('a 405 without Allow');
  if (status === 401 && headers['www-authenticate'] === undefined) {
    problems.push('a 401 without WWW-Authenticate');
  }
  if (status === 409 && headers['x-should-retry'] !== 'false') {
    problems.push('a 409 without x-should-retry: false');
  }
  const documented =
    status < 500 ||
    (status === 503 && code === 'not_ready' && opts.notReady) ||
    (status === 502 && code === 'provider_error' && route.errors?.includes('provider_error'));
  if (!documented) problems.push(`${status} ${String(code)}: ${String(error.message)}`);
  return problems;
}

function successProblems(route: RouteDef, answer: Answer): string[] {
  // A stream's events and a file's bytes have no JSON answer to check.
  if (route.stream !== undefined || route.produces !== undefined || answer.status === 204)
    return [];
  if (!String(answer.headers['content-type']).startsWith('application/json')) {
    return [`a ${answer.status} that is not JSON`];
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return [`a ${answer.status} whose JSON does not parse`];
  }
  const problems: string[] = [];
  const checked = route.response.safeParse(body);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    problems.push(`the answer is off its schema at ${issue?.path.join('.')}: ${issue?.message}`);
  }
  const documented = documentedAnswer(route);
  if (documented !== undefined && !documented(body)) {
    const error = documented.errors?.[0];
    problems.push(
      `the answer is off its OpenAPI schema at ${error?.instancePath || '/'}: ${error?.message}`,
    );
  }
  return problems;
}
