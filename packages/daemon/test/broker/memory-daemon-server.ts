/**
 * The in-memory daemon served over HTTP on a real unix socket, at the protocol's broker and
 * node-token routes (`nodeRoutes`), with node-token auth and the error envelope: what the HTTP
 * binding of `BrokerPort` (src/broker/http-port.ts) is tested against until the daemon serves
 * these routes itself.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import { errorEnvelope, type NodeRouteId, nodeRoutes } from '@svc/protocol';
import { ApiError } from '../../src/errors.ts';
import type { MemoryDaemon } from './memory-daemon.ts';

const compiled = nodeRoutes.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`),
}));

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}

export async function serveMemoryDaemon(
  daemon: MemoryDaemon,
  socketPath: string,
  tokens: ReadonlyMap<string, string>,
): Promise<{ close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const caller = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (caller === undefined) throw new ApiError('unauthorized', 'missing or unknown token');
      let found: { id: NodeRouteId; target: string } | null = null;
      for (const { route, pattern } of compiled) {
        const m = route.method === req.method ? pattern.exec(url.pathname) : null;
        if (m !== null) found = { id: route.id, target: m.groups?.id ?? caller };
      }
      if (found === null) throw new ApiError('not_found', `no route ${req.method} ${url.pathname}`);
      const { id, target } = found;
      const ownOnly = id.startsWith('broker.') || id.startsWith('nodes.mail.');
      if ((ownOnly || id === 'nodes.yield' || id === 'nodes.wait') && target !== caller) {
        throw new ApiError('not_found', `no node ${target}`);
      }
      const body = (await readJson(req)) as never;
      const key = String(req.headers['idempotency-key'] ?? `${Math.random()}`);
      const { port } = daemon.connect(caller);
      const self = () => daemon.get(caller).node;
      switch (id) {
        case 'broker.claim': {
          const { cwd: _, ...session } = await port.load();
          return send(200, session);
        }
        case 'broker.turns.record':
          return send(200, await port.recordTurn(body));
        case 'broker.toolResults.record':
          return send(200, await port.recordToolResult(body));
        case 'broker.result.submit':
          await port.submitResult(body);
          return send(200, self());
        case 'broker.reports.create': {
          await port.report(body);
          const { reports } = daemon.get(caller);
          const { text, data } = body as { text: string; data?: unknown };
          const at = new Date().toISOString();
          return send(200, {
            seq: reports.length,
            node_id: caller,
            text,
            data: data ?? null,
            created_at: at,
          });
        }
        case 'broker.faults.record':
          await port.fault(body);
          return send(200, { node: self(), directive: daemon.get(caller).directive });
        case 'broker.directive.get':
          return send(200, daemon.get(caller).directive);
        case 'broker.jobs.record':
          return send(200, await port.recordJob(body));
        case 'nodes.mail.claim':
          return send(200, { data: await port.claimMail() });
        case 'nodes.mail.acknowledge': {
          const { seqs } = body as { seqs: number[] };
          await port.ackMail(seqs);
          return send(200, { acknowledged: seqs.length });
        }
        case 'nodes.create':
          return send(200, await port.spawnChild(body, key));
        case 'nodes.message':
          return send(200, await port.messageNode(target, (body as { text: string }).text, key));
        case 'nodes.wait': {
          const { node_ids, mode } = body as { node_ids?: string[]; mode?: 'all' | 'any' };
          await port.waitChildren(node_ids ?? 'all', mode ?? 'all');
          return send(200, self());
        }
        case 'nodes.yield':
          await port.park((body as { reason?: string } | undefined)?.reason ?? 'yielded');
          return send(200, self());
        case 'nodes.retrieve':
          return send(200, daemon.get(target).node);
        case 'nodes.list': {
          const parent = url.searchParams.get('parent_id');
          const data = [...daemon.nodes.values()]
            .map((n) => n.node)
            .filter((n) => n.parent_id === parent);
          return send(200, { data, has_more: false, next_cursor: null });
        }
        default:
          throw new ApiError('not_found', `route ${id} is not served here`);
      }
    } catch (error) {
      const e = error instanceof ApiError ? error : new ApiError('internal_error', String(error));
      const extra = e.field === undefined ? {} : { field: e.field };
      send(e.status, errorEnvelope(e.code, e.message, 'req_test', extra));
    }
  });
  server.listen(socketPath);
  await once(server, 'listening');
  return {
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
