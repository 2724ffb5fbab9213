import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { DaemonContext } from '../context.ts';
import type { TcpInfo } from '../ports.ts';

/**
 * `GET /v1/status` (what is running, where, since when) as JSON text, for the route clients
 * poll. What never changes in a daemon's life is serialised once; per call only the uptime, the
 * TCP listener (when it changed), the brokers' counts and whether the viewer's build is there. Serialising the whole object per call
 * was the largest part of the handler's cost.
 */
export function statusJsonWriter(ctx: DaemonContext): () => string {
  let fixed: { head: string; place: string; sandbox: string } | undefined;
  let tcp: TcpInfo | null | undefined;
  let tcpJson = 'null';
  let viewerUrl = 'null';
  return () => {
    // On first use, not at registration: building the route table reads nothing of the context
    // (the OpenAPI document is built from a stub one).
    fixed ??= {
      head: JSON.stringify({
        status: 'ready',
        version: ctx.version,
        pid: ctx.pid,
        started_at: ctx.startedAt.toISOString(),
      }).slice(0, -1),
      place: JSON.stringify({ home: ctx.home, socket_path: ctx.socketPath }).slice(1, -1),
      sandbox: JSON.stringify(ctx.sandbox.status()),
    };
    const now = ctx.tcp();
    if (now !== tcp) {
      tcp = now;
      tcpJson = JSON.stringify(now);
      viewerUrl = now === null ? 'null' : JSON.stringify(`${now.base_url}/viewer/`);
    }
    const brokers = JSON.stringify(ctx.supervisor.stats());
    // Read per call: a build made while the daemon runs is served (and reported) at once.
    const built = existsSync(join(ctx.viewerDist, 'index.html'));
    const viewer = `{"url":${viewerUrl},"built":${built}}`;
    return `${fixed.head},"uptime_s":${uptime(ctx)},${fixed.place},"tcp":${tcpJson},"brokers":${brokers},"viewer":${viewer},"sandbox":${fixed.sandbox}}`;
  };
}

function uptime(ctx: DaemonContext): number {
  return Math.round((Date.now() - ctx.startedAt.getTime()) / 1000);
}
