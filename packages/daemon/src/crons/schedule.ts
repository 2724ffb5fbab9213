/**
 * Cron expressions and time zones through croner (DESIGN §2), used only to check them and to
 * compute the next time: the daemon's scheduler owns timing, so that each fire is claimed in a
 * transaction (croner's own timers could not be).
 */
import { Cron } from 'croner';
import { ApiError } from '../errors.ts';

/** Refuses an unknown IANA time zone (422 naming `timezone`). */
export function checkTimezone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new ApiError(
      'validation_failed',
      `'${timezone}' is not an IANA time zone (e.g. UTC, Europe/Paris, America/New_York)`,
      { field: 'timezone', received: timezone },
    );
  }
}

function parse(schedule: string, timezone: string): Cron {
  try {
    // `paused` and no callback: croner arms no timer of its own.
    return new Cron(schedule, { timezone, paused: true });
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : 'invalid';
    throw new ApiError('validation_failed', `schedule: ${why}`, {
      field: 'schedule',
      received: schedule,
    });
  }
}

/** Checks expression and zone; throws the 422 a create answers. */
export function checkSchedule(schedule: string, timezone: string): void {
  checkTimezone(timezone);
  // croner takes `0 0 30 2 *` (February 30th) and past years: a cron that can never fire is a
  // mistake to refuse, not an active cron with no next run.
  if (nextRunAfter(parse(schedule, timezone), new Date()) === null) {
    throw new ApiError(
      'validation_failed',
      'schedule: never fires (no time after now matches it)',
      {
        field: 'schedule',
        received: schedule,
      },
    );
  }
}

/** The first scheduled time strictly after `from` as ISO text; `null` when none is left. */
export function nextRunAt(schedule: string, timezone: string, from: Date): string | null {
  return nextRunAfter(parse(schedule, timezone), from);
}

function nextRunAfter(cron: Cron, from: Date): string | null {
  return cron.nextRun(from)?.toISOString() ?? null;
}
