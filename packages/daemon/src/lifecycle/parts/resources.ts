import { canvasHistoryService } from '../../canvas/history.ts';
import { keepSearchIndex, searchIndex } from '../../canvas/search-index.ts';
import { canvasService } from '../../canvas/service.ts';
import { cronService } from '../../crons/service.ts';
import { customObjectService, type DeliveryPolicy } from '../../custom-objects/service.ts';
import { directoryKeys } from '../../directory/keys.ts';
import { directoryService } from '../../directory/service.ts';
import { eventLog } from '../../events/log.ts';
import { focusService } from '../../focuses/service.ts';
import { humanService } from '../../human/service.ts';
import { llmService } from '../../llm/service.ts';
import { memoryService } from '../../memory/service.ts';
import { modelService } from '../../models/service.ts';
import { nodeService } from '../../nodes/service.ts';
import { removeWorktrees } from '../../nodes/tree-removal.ts';
import { pluginService } from '../../plugins/service.ts';
import type { TcpInfo } from '../../ports.ts';
import { profileService } from '../../profiles/service.ts';
import { providerService } from '../../providers/service.ts';
import { questionService } from '../../questions/service.ts';
import { runService } from '../../runs/service.ts';
import { shareService } from '../../shares/service.ts';
import type { Store } from '../../store/index.ts';
import { tokenService } from '../../tokens/service.ts';
import { attachmentService } from '../../uploads/attachments.ts';
import { uploadService } from '../../uploads/service.ts';
import { viewerService } from '../../viewer/service.ts';
import type { GitRunner } from '../../worktrees/git.ts';
import type { Logger } from '../logger.ts';
import { definePart } from './part.ts';

export interface ResourcesOptions {
  store: Store;
  home: string;
  ownerTokenFile: string;
  logger: Logger;
  /** The TCP listener's address, read when asked (the listeners start after the resources). */
  tcp: () => TcpInfo | null;
  /** How git runs on a git node's repository: confined (`../../bash/git-runner.ts`). */
  git: GitRunner;
  objects?: Partial<DeliveryPolicy> | undefined;
  viewer?: { linkTtlMs?: number | undefined; now?: (() => number) | undefined } | undefined;
}

/**
 * Every resource's service, each built once from the ones it uses. Building changes nothing but
 * the owner token (made when missing).
 */
export function resourcesPart(opts: ResourcesOptions) {
  const { store, home, logger, tcp, git } = opts;
  const events = eventLog(store);
  const tokens = tokenService(store, events);
  tokens.ensureOwner(opts.ownerTokenFile);
  const models = modelService(store, events);
  const profiles = profileService(store, events);
  const nodes = nodeService({ store, events, profiles, models, home, logger });
  const runs = runService(store, events, nodes, (ids) =>
    removeWorktrees({ home, git }, logger, ids),
  );
  const crons = cronService({ store, events, nodes });
  const human = humanService({ store, events, nodes });
  const customObjects = customObjectService({ store, events, policy: opts.objects });
  const uploads = uploadService({ store, events, home });
  const directory = directoryService({ store, keys: directoryKeys(home), tcp, profiles });
  const search = searchIndex(store.db);
  const services = {
    store,
    git,
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
    canvas: canvasService({ store, events, nodes, crons, home, git, logger }),
    canvasHistory: canvasHistoryService({ store, nodes, search }),
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
  let stopIndexing = () => {};
  return definePart({
    name: 'resources',
    services,
    start() {
      stopIndexing = keepSearchIndex(search, events.subscribe);
    },
    close() {
      stopIndexing();
    },
  });
}

export type Resources = ReturnType<typeof resourcesPart>['services'];
