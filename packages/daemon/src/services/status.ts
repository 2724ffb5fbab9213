import type { DaemonContext } from '../context.ts';

/** `GET /v1/status`: what is running, where, since when. */
export function daemonStatus(ctx: DaemonContext) {
  return {
    status: 'ready' as const,
    version: ctx.version,
    pid: ctx.pid,
    started_at: ctx.startedAt.toISOString(),
    uptime_s: Math.round((Date.now() - ctx.startedAt.getTime()) / 1000),
    home: ctx.home,
    socket_path: ctx.socketPath,
    tcp: ctx.tcp(),
    brokers: ctx.supervisor.stats(),
  };
}
