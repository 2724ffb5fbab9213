/**
 * The Node executor of a node's sandbox: the broker's own Node binary, bound read-only, running
 * this program. It is the fall-back where the C executor (executor.c, the same behaviour in about
 * 1 MB instead of about 40) cannot be built; it speaks the same wire (executor-wire.ts). Each
 * command is spawned in a process group of its own, its output and its end streamed back.
 */
import { CHUNK, HEADER, KEEP, MAX_FRAME } from './executor-wire.ts';
import { PROXY_PORT } from './proxy.ts';

export const NODE_EXECUTOR_PATH = '/run/svc/node';

// A command whose shell exited while something it left holds the pipes open is given 250 ms for
// the rest of its output, as `runBash` does. Frames it cannot read end it (exit 2), as the C one.
export const NODE_EXECUTOR = `
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const jobs = new Map();
const send = (type, id, body) => {
  const h = Buffer.alloc(${HEADER});
  h.write(type, 0, 'latin1');
  h.writeUInt32LE(id, 1);
  h.writeUInt32LE(body ? body.length : 0, 5);
  process.stdout.write(body && body.length ? Buffer.concat([h, body]) : h);
};
let chunks = [];
let held = 0;
process.stdin.on('data', (d) => {
  chunks.push(d);
  held += d.length;
  while (held >= ${HEADER}) {
    if (chunks[0].length < ${HEADER}) chunks = [Buffer.concat(chunks, held)];
    const len = chunks[0].readUInt32LE(5);
    if (len > ${MAX_FRAME}) process.exit(2);
    if (held < ${HEADER} + len) return;
    const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, held);
    const type = String.fromCharCode(all[0]);
    const id = all.readUInt32LE(1);
    const body = all.subarray(${HEADER}, ${HEADER} + len);
    if (type === 'C') run(id, body);
    else if (type === 'K' && len === 0) kill(id);
    else process.exit(2);
    const rest = all.subarray(${HEADER} + len);
    chunks = rest.length ? [rest] : [];
    held = rest.length;
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
function kill(id) {
  const job = jobs.get(id);
  if (job) killGroup(job.pid);
}
function run(id, body) {
  if (body.length < 8) process.exit(2);
  const argc = body.readUInt32LE(0);
  const envc = body.readUInt32LE(4);
  const strings = body.subarray(8).toString('utf8').split('\\0');
  if (argc < 1 || strings.length !== 2 + argc + envc || strings.pop() !== '') process.exit(2);
  const [cwd, ...rest] = strings;
  const env = {};
  for (const kv of rest.slice(argc)) {
    const at = kv.indexOf('=');
    env[at < 0 ? kv : kv.slice(0, at)] = at < 0 ? '' : kv.slice(at + 1);
  }
  const argv = rest.slice(0, argc);
  let child;
  try {
    child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  } catch (e) { send('F', id, Buffer.from(String(e && e.message))); return; }
  jobs.set(id, child);
  const sent = [0, 0];
  const pipe = (stream, type, n) => stream.on('data', (c) => {
    for (let at = 0; at < c.length && sent[n] < ${KEEP}; ) {
      const part = c.subarray(at, at + Math.min(${CHUNK}, ${KEEP} - sent[n]));
      sent[n] += part.length;
      at += part.length;
      send(type, id, part);
    }
  });
  pipe(child.stdout, 'O', 0);
  pipe(child.stderr, 'E', 1);
  let done = false;
  const finish = (end) => {
    if (done) return;
    done = true;
    jobs.delete(id);
    if (end.error !== undefined) return send('F', id, Buffer.from(String(end.error)));
    const b = Buffer.alloc(8);
    b.writeInt32LE(end.code ?? -1, 0);
    b.writeInt32LE(end.signal ? constants.signals[end.signal] : 0, 4);
    send('X', id, b);
  };
  child.once('error', (e) => finish({ error: e && e.message }));
  child.once('close', (code, signal) => finish({ code, signal }));
  child.once('exit', (code, signal) => {
    // What the command left running in its group ends with it, as in a sandbox of its own.
    killGroup(child.pid);
    const late = setTimeout(() => { child.stdout.destroy(); child.stderr.destroy(); finish({ code, signal }); }, 250);
    child.once('close', () => clearTimeout(late));
  });
}
const ready = () => send('Y', 0);
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
