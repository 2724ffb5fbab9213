/**
 * `npm start`: the svc daemon in the foreground on SVC_HOME (default ~/.svc) with its TCP listener
 * on, what a person needs to try it, and one real authenticated request as proof. Ctrl-C or
 * SIGTERM drains and stops it.
 *
 * Env: SVC_HOME (the home), SVC_TCP ([HOST:]PORT of the listener; default 127.0.0.1, any free port).
 */
import { palette, parseListenAddress, renderStatus, wantsColor } from '@svc/cli';
import { createLocalClient } from '@svc/client/node';
import { startDaemon } from '@svc/daemon';
import { resolveHome } from '@svc/protocol/home';

const home = resolveHome();
const tcp = listenAddress(process.env.SVC_TCP);
const colors = palette(wantsColor(process.stdout.isTTY, process.env));

let daemon: Awaited<ReturnType<typeof startDaemon>>;
try {
  daemon = await startDaemon({ home, tcp, installSignalHandlers: true });
} catch (err) {
  process.stderr.write(`svc: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}

const client = createLocalClient({ home });
const status = await client.system.status();
const baseUrl = status.tcp?.base_url ?? '(TCP listener off)';
const homeFlag = process.env.SVC_HOME ? ` --home ${home}` : '';

process.stdout.write(
  [
    '',
    'svc daemon is running. GET /v1/status with the owner token answered:',
    '',
    indent(renderStatus(status, colors)),
    '',
    'Try it from another terminal:',
    `  npx svc status${homeFlag}`,
    `  npx svc sys connect --json${homeFlag}     # base_url and the owner bearer token`,
    `  npx svc sys connect --open${homeFlag}     # the web viewer, logged in, in your browser`,
    `  curl -s ${baseUrl}/v1/health`,
    `  curl -s -H "Authorization: Bearer $(cat ${daemon.home}/owner.token)" ${baseUrl}/v1/status`,
    '',
    'Ctrl-C stops it.',
    '',
  ].join('\n'),
);

await daemon.closed;
process.stdout.write('svc daemon stopped\n');
// The client's keep-alive socket to the (now closed) daemon must not hold the process open.
process.exit(0);

function listenAddress(spec: string | undefined): { host: string; port: number } {
  if (spec === undefined || spec === '') return { host: '127.0.0.1', port: 0 };
  try {
    const { host = '127.0.0.1', port } = parseListenAddress(spec, 'SVC_TCP');
    return { host, port };
  } catch (err) {
    process.stderr.write(`svc: ${(err as Error).message}\n`);
    process.exit(2);
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
