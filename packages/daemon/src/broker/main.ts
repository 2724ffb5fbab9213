/**
 * The broker process of one node: `node src/broker/main.ts`, spawned by the daemon's supervisor
 * (one process per active node, in its own process group), often ahead of need: it loads its
 * modules and makes its tools' specs first, then waits for its launch message on stdin (`brokerLaunchSchema`: the node, its
 * token, the daemon's socket, the node's worktree it moves to, the model with its key; the only
 * way secrets reach it), binds the control plane over the unix socket with the node token, runs
 * the agent loop and exits. A daemon that goes away closes its stdin: a spare exits (2).
 * Once it holds its node it serves host-local viewers on the launch's `viewer_socket_path`
 * (`./viewer-socket.ts`, `nodes.attach`); a socket that cannot be opened leaves the node running
 * without viewers.
 *
 * SIGTERM (cancel, interrupt, shutdown) aborts the loop: the model request stops and a running
 * `bash` has its process group killed at once. The exit code says only whether the process ran
 * its course (0) or could not start (2); how the node ended is in the daemon's record.
 */
import { brokerLaunchSchema } from '@svc/protocol';
import { z } from 'zod';
import { createLanguageModel, type ScriptedTurn } from '../model-access/providers/index.ts';
import { BROKER_TAG_ENV, brokerTag } from '../supervisor/broker-tag.ts';
import { runAgentLoop } from './agent-loop.ts';
import { createHttpBrokerPort } from './http-port.ts';
import type { LoopExit } from './loop-exit.ts';
import type { BrokerPort } from './port.ts';
import { BROKER_TOOLS, toolSpec } from './tools/index.ts';
import { createViewerSocket } from './viewer-socket.ts';
import { JITLESS } from './zod-options.ts';

const EXIT_BAD_LAUNCH = 2;

// A spare does what needs no node while it waits for one, so its first turn does not.
for (const tool of BROKER_TOOLS) toolSpec(tool);
const text = await readStdin();
const parsed = brokerLaunchSchema.safeParse(parseJson(text), JITLESS);
if (!parsed.success) {
  // Never echo the input: it holds the token and the model key.
  log({ msg: 'bad launch message on stdin', error: z.prettifyError(parsed.error) });
  process.exit(EXIT_BAD_LAUNCH);
}
const launch = parsed.data;
if (launch.cwd !== undefined) process.chdir(launch.cwd);
// Inherited by every command the node runs, so none outlives this broker unseen (broker-tag.ts).
process.env[BROKER_TAG_ENV] = brokerTag(launch.node_id, process.pid);
const { provider, model, api_key, base_url, script } = launch.model;

const controller = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => controller.abort('the node was stopped'));
}

const port = createHttpBrokerPort({
  socketPath: launch.socket_path,
  nodeId: launch.node_id,
  token: launch.token,
  cwd: process.cwd(),
  home: launch.home,
  sandbox: launch.sandbox,
});
const viewers =
  launch.viewer_socket_path === undefined
    ? null
    : createViewerSocket({ path: launch.viewer_socket_path });
// Viewers are served from the claim on, starting with the turns the node resumes from.
const loopPort: BrokerPort =
  viewers === null
    ? port
    : {
        ...port,
        async load() {
          const session = await port.load();
          await viewers.listen(session.turns).catch((error: unknown) => {
            log({ msg: 'no viewer socket', error: (error as Error).message });
          });
          return session;
        },
      };
let exit: LoopExit | undefined;
try {
  exit = await runAgentLoop({
    port: loopPort,
    model: createLanguageModel({
      provider,
      model,
      ...(api_key !== undefined && { apiKey: api_key }),
      ...(base_url !== undefined && { baseUrl: base_url }),
      // Parsed from JSON, so no member is `undefined`; the scripted model checks it again.
      ...(script !== undefined && { script: script as ScriptedTurn[] }),
    }),
    signal: controller.signal,
    env: launch.env,
    // The key, and env values long enough to be secrets (blanking a "1" would garble messages).
    secrets: [
      ...(api_key === undefined ? [] : [api_key]),
      ...Object.values(launch.env ?? {}).filter((value) => value.length >= 8),
    ],
    ...(viewers !== null && { onEvent: (event) => viewers.publish(event) }),
  });
  log({ msg: 'loop ended', node_id: launch.node_id, exit: exit.kind, reason: exit.reason });
} finally {
  await viewers?.close(exit);
  await port.close();
}
process.exit(0);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One JSON line on stderr, which the supervisor appends to the node's broker log. */
function log(fields: Record<string, unknown>): void {
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), pid: process.pid, ...fields })}\n`,
  );
}
