import { directoryKeys } from '../../directory/keys.ts';
import { llmService } from '../../llm/service.ts';
import { modelService } from '../../models/service.ts';
import type { TcpInfo } from '../../ports.ts';
import { profileService } from '../../profiles/service.ts';
import { providerService } from '../../providers/service.ts';
import { attachmentService } from '../../services/attachments.ts';
import { canvasService } from '../../services/canvas.ts';
import { canvasHistoryService } from '../../services/canvas-history.ts';
import { cronService } from '../../services/crons.ts';
import { customObjectService, type DeliveryPolicy } from '../../services/custom-objects.ts';
import { directoryService } from '../../services/directory.ts';
import { eventLog } from '../../services/events.ts';
import { focusService } from '../../services/focuses.ts';
import { humanService } from '../../services/human.ts';
import { memoryService } from '../../services/memory.ts';
import { nodeService } from '../../services/nodes.ts';
import { pluginService } from '../../services/plugins.ts';
import { questionService } from '../../services/questions.ts';
import { runService } from '../../services/runs.ts';
import { shareService } from '../../services/shares.ts';
import { tokenService } from '../../services/tokens.ts';
import { removeWorktrees } from '../../services/tree-removal.ts';
import { uploadService } from '../../services/uploads.ts';
import { viewerService } from '../../services/viewer.ts';
import type { Store } from '../../store/index.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';

export interface ResourcesOptions {
  store: Store;
  home: string;
  ownerTokenFile: string;
  logger: Logger;
  /** The TCP listener's address, read when asked (the listeners start after the resources). */
  tcp: () => TcpInfo | null;
  objects?: Partial<DeliveryPolicy> | undefined;
  viewer?: { linkTtlMs?: number | undefined; now?: (() => number) | undefined } | undefined;
}

/**
 * Every resource's service, each built once from the ones it uses. Building changes nothing but
 * the owner token (made when missing).
 */
export function resourcesPart(opts: ResourcesOptions) {
  const { store, home, logger, tcp } = opts;
  const events = eventLog(store);
  const tokens = tokenService(store, events);
  tokens.ensureOwner(opts.ownerTokenFile);
  const models = modelService(store, events);
  const profiles = profileService(store, events);
  const nodes = nodeService({ store, events, profiles, models, home });
  const runs = runService(store, events, nodes, (ids) => removeWorktrees(home, logger, ids));
  const crons = cronService({ store, events, nodes });
  const human = humanService({ store, events, nodes });
  const customObjects = customObjectService({ store, events, policy: opts.objects });
  const uploads = uploadService({ store, events, home });
  const directory = directoryService({ store, keys: directoryKeys(home), tcp, profiles });
  const services = {
    store,
    tokens,
    events,
    models,
    profiles,
    plugins: pluginService(store, events),
    llm: llmService(models, profiles),
    nodes,
    runs,
    crons,
    customObjects,
    canvas: canvasService({ store, events, nodes, crons, home, logger }),
    canvasHistory: canvasHistoryService({ store, nodes }),
    human,
    memory: memoryService({ store, events }),
    directory,
    providers: providerService({ store, profiles, directory }),
    uploads,
    attachments: attachmentService({ store, uploads, tcp }),
    shares: shareService(store, events),
    questions: questionService({ store, events, human, nodes }),
    focuses: focusService({ store, nodes }),
    viewer: viewerService(store, events, {
      linkTtlMs: opts.viewer?.linkTtlMs,
      now: opts.viewer?.now,
    }),
  };
  return definePart({
    name: 'resources',
    services,
    // The timers of nodes waiting on one, re-armed once every part is built (their runtime too).
    start: () => nodes.start(),
    close: () => nodes.close(),
  });
}

export type Resources = ReturnType<typeof resourcesPart>['services'];
