/** The running daemon as its handlers and services see it (built once in `startDaemon`). */

import type { SseRegistry } from './http/sse.ts';
import type { Logger, RequestLog } from './lifecycle/logger.ts';
import type { NodeService } from './nodes/service.ts';
import type { TcpInfo } from './ports.ts';
import type { RunService } from './runs/service.ts';
import type { SandboxService } from './sandbox/service.ts';
import type { AttachmentService } from './services/attachments.ts';
import type { BrokerPlane } from './services/broker-plane.ts';
import type { CanvasService } from './services/canvas.ts';
import type { CanvasHistoryService } from './services/canvas-history.ts';
import type { CronService } from './services/crons.ts';
import type { CustomObjectService } from './services/custom-objects.ts';
import type { DirectoryService } from './services/directory.ts';
import type { EventLog } from './services/events.ts';
import type { FocusService } from './services/focuses.ts';
import type { HumanService } from './services/human.ts';
import type { LlmService } from './services/llm.ts';
import type { MemoryService } from './services/memory.ts';
import type { ModelService } from './services/models.ts';
import type { PluginService } from './services/plugins.ts';
import type { ProfileService } from './services/profiles.ts';
import type { ProviderService } from './services/providers.ts';
import type { QuestionService } from './services/questions.ts';
import type { ShareService } from './services/shares.ts';
import type { TokenService } from './services/tokens.ts';
import type { UploadService } from './services/uploads.ts';
import type { ViewerService } from './services/viewer.ts';
import type { Store } from './store/index.ts';
import type { Supervisor } from './supervisor/supervisor.ts';

/** What the handlers need from the running daemon. */
export interface DaemonContext {
  version: string;
  pid: number;
  startedAt: Date;
  home: string;
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
