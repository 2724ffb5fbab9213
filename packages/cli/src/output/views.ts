import type { SystemStatus } from '@svc/client';
import type { Palette } from './color.ts';
import { cell, formatDuration } from './format.ts';
import { renderFields } from './table.ts';

/** `GET /v1/status`, or as much of it as is known (a foreground daemon before its first request). */
export type StatusView = Partial<SystemStatus>;

/**
 * Confinement as readiness is shown: ready with its bounds, or what is wrong and the fix. Off is
 * said plainly: agents' commands then run as the person.
 */
function renderSandbox(sandbox: StatusView['sandbox'], colors: Palette): string {
  if (sandbox === undefined) return '-';
  if (sandbox.mode === 'off') {
    return colors.yellow(
      `OFF: agents' and scoped tokens' commands run unconfined (${sandbox.fix ?? ''})`,
    );
  }
  if (!sandbox.ready) {
    return colors.yellow(
      `not ready: ${sandbox.reason ?? ''}; commands are refused. Fix: ${sandbox.fix ?? ''}`,
    );
  }
  const { pids, memory_bytes, by } = sandbox.limits;
  const bounds =
    by === null
      ? 'processes and memory unbounded'
      : `${pids ?? '∞'} processes${memory_bytes === null ? '' : `, ${Math.round(memory_bytes / 1024 ** 2)} MiB`} per command (${by})`;
  const network =
    typeof sandbox.network === 'string'
      ? sandbox.network
      : `only ${sandbox.network.allow.join(', ')}`;
  return `${colors.green('ready')} ${sandbox.tool ?? ''}, network ${network}, ${bounds}`;
}

/** Where the web viewer is, or what it needs first: the TCP listener, or a build. */
function viewerLine(viewer: StatusView['viewer'], colors: Palette): string {
  if (viewer === undefined) return '-';
  if (!viewer.built) return colors.yellow('not built: run `npm run build -w @svc/viewer`');
  if (viewer.url === null)
    return 'off (the TCP listener is off: `svc sys connect --open` turns it on)';
  return `${viewer.url} (log in with \`svc sys connect --open\`)`;
}

export function renderStatus(status: StatusView, colors: Palette): string {
  const state = status.status ?? 'unknown';
  return renderFields(
    [
      ['status', state === 'ready' ? colors.green(state) : colors.yellow(state)],
      ['version', cell(status.version)],
      ['pid', cell(status.pid)],
      ['home', cell(status.home)],
      ['socket', cell(status.socket_path)],
      ['tcp', status.tcp ? status.tcp.base_url : 'off'],
      ['viewer', viewerLine(status.viewer, colors)],
      [
        'brokers',
        status.brokers === undefined
          ? '-'
          : `${status.brokers.active} of ${status.brokers.concurrency} running, ${status.brokers.queued} queued`,
      ],
      ['sandbox', renderSandbox(status.sandbox, colors)],
      ['uptime', status.uptime_s === undefined ? '-' : formatDuration(status.uptime_s)],
      ['started', cell(status.started_at)],
    ],
    colors,
  );
}
