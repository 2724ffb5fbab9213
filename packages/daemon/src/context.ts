/** The running daemon as its handlers and services see it (built once in `startDaemon`). */

import type { BrokerPlane } from './broker-plane/service.ts';
import type { CanvasHistoryService } from './canvas/history.ts';
import type { CanvasService } from './canvas/service.ts';
import type { CronService } from './crons/service.ts';
import type { CustomObjectService } from './custom-objects/service.ts';
import type { DirectoryService } from './directory/service.ts';
import type { EventLog } from './events/log.ts';
import type { FocusService } from './focuses/service.ts';
import type { SseRegistry } from './http/sse.ts';
import type { HumanService } from './human/service.ts';
import type { Logger, RequestLog } from './lifecycle/logger.ts';
import type { LlmService } from './llm/service.ts';
import type { MemoryService } from './memory/service.ts';
import type { ModelService } from './models/service.ts';
import type { NodeService } from './nodes/service.ts';
import type { PluginService } from './plugins/service.ts';
import type { TcpInfo } from './ports.ts';
import type { ProfileService } from './profiles/service.ts';
import type { ProviderService } from './providers/service.ts';
import type { QuestionService } from './questions/service.ts';
import type { RunService } from './runs/service.ts';
import type { SandboxService } from './sandbox/service.ts';
import type { ShareService } from './shares/service.ts';
import type { Store } from './store/index.ts';
import type { Supervisor } from './supervisor/supervisor.ts';
import type { TokenService } from './tokens/service.ts';
import type { AttachmentService } from './uploads/attachments.ts';
import type { UploadService } from './uploads/service.ts';
import type { ViewerService } from './viewer/service.ts';
import type { GitRunner } from './worktrees/git.ts';

/** What the handlers need from the running daemon. */
export interface DaemonContext {
  version: string;
  pid: number;
  startedAt: Date;
  home: string;
  /** How git runs on a git node's repository: confined (`bash/git-runner.ts`). */
  git: GitRunner;
  socketPath: string;
  ownerTokenFile: string;
  store: Store;
  tokens: TokenService;
  events: EventLog;
  models: ModelService;
  profiles: ProfileService;
  plugins: PluginService;
  llm: LlmService;
  nodes: NodeService;
  runs: RunService;
  crons: CronService;
  customObjects: CustomObjectService;
  canvas: CanvasService;
  canvasHistory: CanvasHistoryService;
  human: HumanService;
  memory: MemoryService;
  brokers: BrokerPlane;
  directory: DirectoryService;
  providers: ProviderService;
  /** The application-facing API: uploads, their attachment links, shares, questions. */
  uploads: UploadService;
  attachments: AttachmentService;
  shares: ShareService;
  questions: QuestionService;
  /** The viewer's node-to-pane map (`/v1/focuses`). */
  focuses: FocusService;
  /** The web viewer's login links and sessions. */
  viewer: ViewerService;
  /** The viewer's build (`index.html`, `assets/`), served on the TCP listener. */
  viewerDist: string;
  supervisor: Pick<Supervisor, 'stats'>;
  /** Confinement: the host's sandbox, the person's settings, each caller's plan. */
  sandbox: SandboxService;
  logger: Logger;
  /** The log line of each answered request (`createLogger`). */
  requestLog: RequestLog;
  sse: SseRegistry;
  sseKeepaliveMs: number;
  tcp(): TcpInfo | null;
  enableTcp(opts: { host?: string | undefined; port?: number | undefined }): Promise<TcpInfo>;
  /** True once shutdown began: new requests are answered 503. */
  draining(): boolean;
  /** Starts the drain and exit; returns at once. */
  requestShutdown(): void;
  /** Aborted when the drain gives up waiting: long-running work (bash) stops then. */
  hardStop: AbortSignal;
}
