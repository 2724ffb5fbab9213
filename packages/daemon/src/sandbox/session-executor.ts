/**
 * The small program a node's sandbox runs (see session.ts): it spawns each command it is sent in
 * a process group of its own and streams back its output and its end, one JSON line each.
 */
import { PROXY_PORT } from './proxy.ts';

/** Bytes of each stream a command's result keeps; one more tells it was cut. */
const KEEP = 1024 * 1024 + 1;
export const EXECUTOR_PATH = '/run/svc/node';

// The executor: JSON lines in (a command, or a kill), JSON lines out (output chunks in base64,
// then the end). A command whose shell exited while something it left holds the pipes open is
// given 250 ms for the rest of its output, as `runBash` does.
export const EXECUTOR = `
const { spawn } = require('node:child_process');
const jobs = new Map();
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => {
  buf += d;
  for (let i = buf.indexOf('\\n'); i >= 0; i = buf.indexOf('\\n')) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    handle(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
// A group is killed until none of it is left: a process forking while the signal goes round
// (a fork bomb) leaves nothing behind.
function killGroup(pid) {
  for (let i = 0; i < 1000; i++) {
    try { process.kill(-pid, 'SIGKILL'); } catch { return; }
  }
}
function handle(m) {
  if (m.kill !== undefined) {
    const job = jobs.get(m.kill);
    if (job) killGroup(job.pid);
    return;
  }
  let child;
  try {
    child = spawn(m.argv[0], m.argv.slice(1), { cwd: m.cwd, env: m.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  } catch (e) { send({ id: m.id, error: String(e && e.message) }); return; }
  jobs.set(m.id, child);
  const sent = [0, 0];
  const pipe = (stream, key, n) => stream.on('data', (c) => {
    if (sent[n] >= ${KEEP}) return;
    const part = c.subarray(0, ${KEEP} - sent[n]);
    sent[n] += part.length;
    send({ id: m.id, [key]: part.toString('base64') });
  });
  pipe(child.stdout, 'o', 0);
  pipe(child.stderr, 'e', 1);
  let done = false;
  const finish = (end) => { if (done) return; done = true; jobs.delete(m.id); send({ id: m.id, ...end }); };
  child.once('error', (e) => finish({ error: String(e && e.message) }));
  child.once('close', (code, signal) => finish({ code, signal }));
  child.once('exit', (code, signal) => {
    // What the command left running in its group ends with it, as in a sandbox of its own.
    killGroup(child.pid);
    const late = setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); finish({ code, signal }); }, 250);
    child.once('close', () => clearTimeout(late));
  });
}
const ready = () => send({ ready: true });
if (process.env.SVC_PROXY_SOCKET) {
  // The node's network is a list of domains: 127.0.0.1:${PROXY_PORT} leads to its proxy.
  const net = require('node:net');
  net.createServer((c) => {
    const u = net.connect(process.env.SVC_PROXY_SOCKET);
    c.pipe(u); u.pipe(c);
    c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
  }).listen(${PROXY_PORT}, '127.0.0.1', ready);
} else ready();
`;

/** Longer than any line the executor writes (an output chunk of 64 KiB, in base64, and JSON). */
export const MAX_LINE = 1024 * 1024;

/** One line the executor writes. */
export interface ExecutorMessage {
  ready?: true;
  id?: number;
  o?: string;
  e?: string;
  code?: number | null;
  signal?: string | null;
  error?: string;
}
