import { heapRelease } from '../heap-release.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';

/**
 * Memory a burst of work left resident goes back to the system once the daemon has been quiet
 * (`../heap-release.ts`); every request the listeners serve starts the quiet spell again.
 */
export function heapReleasePart(logger: Logger) {
  const release = heapRelease({
    onRelease: (ms) => {
      logger.debug({ ms: Math.round(ms), rss: process.memoryUsage.rss() }, 'quiet: heap released');
    },
  });
  return definePart({ name: 'heap release', touch: release.touch, close: release.close });
}
