import { executorCacheDir } from '../../sandbox/executor-cache.ts';
import { heapRelease } from '../heap-release.ts';
import type { Logger } from '../logger.ts';
import { mallocTrimmer } from '../malloc-trim.ts';
import { definePart } from './part.ts';

/**
 * Memory a burst of work left resident goes back to the system once the daemon has been quiet
 * (`../heap-release.ts`): V8's, then the C library's (`../malloc-trim.ts`, its addon built in
 * the cache of the sandbox's programs); every request the listeners serve starts the quiet spell
 * again.
 */
export function heapReleasePart(logger: Logger, home: string) {
  const trim = mallocTrimmer(
    () => executorCacheDir(home),
    (why) => logger.warn(why),
    (released) =>
      logger.debug({ released, rss: process.memoryUsage.rss() }, 'quiet: malloc trimmed'),
  );
  const release = heapRelease({
    onRelease: (ms) => {
      logger.debug({ ms: Math.round(ms), rss: process.memoryUsage.rss() }, 'quiet: heap released');
      trim();
    },
  });
  return definePart({ name: 'heap release', touch: release.touch, close: release.close });
}
