import type { SystemStatus } from '@svc/client';
import type { Palette } from './color.ts';
import { cell, formatDuration } from './format.ts';
import { renderFields } from './table.ts';

/** `GET /v1/status`, or as much of it as is known (a foreground daemon before its first request). */
export type StatusView = Partial<SystemStatus>;

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
      [
        'brokers',
        status.brokers === undefined
          ? '-'
          : `${status.brokers.active} of ${status.brokers.concurrency} running, ${status.brokers.queued} queued`,
      ],
      ['uptime', status.uptime_s === undefined ? '-' : formatDuration(status.uptime_s)],
      ['started', cell(status.started_at)],
    ],
    colors,
  );
}
