import type { ProfileService } from '../../profiles/service.ts';
import { sandboxService } from '../../sandbox/service.ts';
import { loadSandboxSettings, type SandboxMode } from '../../sandbox/settings.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';

/** Confinement: the host's sandbox, the person's settings; closed once no broker is left. */
export function sandboxPart(opts: {
  home: string;
  mode: SandboxMode;
  profiles: ProfileService;
  logger: Logger;
}) {
  const sandbox = sandboxService({
    home: opts.home,
    settings: loadSandboxSettings(opts.home, opts.mode),
    profiles: opts.profiles,
  });
  if (!sandbox.host.ready) {
    opts.logger.warn({ reason: sandbox.host.reason }, 'no sandbox: confined commands are refused');
  }
  return definePart({ name: 'sandbox', sandbox, close: () => sandbox.close() });
}
