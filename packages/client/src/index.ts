import { Svc } from './client.ts';

export { type ClientOptions, type RawRequest, Svc, type VerbOptions } from './client.ts';
export default Svc;
/** The daemon's DTOs, each the one type the protocol defines from the schema it validates with. */
export type {
  AttachmentLink,
  AttentionCounts,
  AttentionItem,
  BashResult,
  CanvasNode,
  CanvasPruneResult,
  CanvasSnapshot,
  Cron,
  CronDeleteResult,
  CronRunResult,
  CustomObject,
  CustomObjectAckResult,
  CustomObjectDeleteResult,
  CustomObjectPublishResult,
  CustomObjectRegistered,
  FileList,
  FileSlice,
  FileWriteResult,
  GrantInfo,
  GrepHit,
  HealthStatus,
  HistoryGrepResult,
  HistoryReadResult,
  HistorySearchResult,
  HistoryStats,
  HumanRequest,
  HumanResponse,
  InboxResponse,
  Job,
  Liveness,
  Mail,
  MemoryDocument,
  MemoryDocumentSummary,
  ModelAuthReadiness,
  ModelConfig,
  ModelCredential,
  Node,
  NodeEvent,
  NodeOutcome,
  NodeParseResult,
  NodeReviveAllResult,
  NodeWaitResult,
  ObjectDelivery,
  Profile,
  ProviderCallResult,
  ProviderTool,
  ProviderToolList,
  Question,
  Report,
  RosterEntry,
  Run,
  RunDeleteResult,
  RunParseResult,
  RunWaitResult,
  SearchHit,
  Share,
  ShareDeleteResult,
  SvcEvent,
  SystemStatus,
  Ticket,
  TranscriptTurn,
  Turn,
  Upload,
  Worktree,
} from '@svc/protocol';
export { APIPromise } from './core/api-promise.ts';
export {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type ErrorBody,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  SvcError,
  UnprocessableEntityError,
} from './core/errors.ts';
export {
  NodeStream,
  OutcomeStream,
  RunStream,
  type StreamOutcome,
} from './core/outcome-stream.ts';
export { PagePromise } from './core/page-promise.ts';
export type { ListPage } from './core/pages.ts';
export type { Fetch, RequestOptions, StreamOptions } from './core/request-options.ts';
export type { ServerSentEvent } from './core/sse.ts';
export { Stream } from './core/stream.ts';
export type { HeadersLike } from './internal/headers.ts';
export type { AttachmentLinkParams } from './resources/attachments.ts';
export type { AuthStatus } from './resources/auth.ts';
export type { BashRunParams } from './resources/bash.ts';
export type {
  AttentionList,
  AttentionListParams,
  CanvasPruneParams,
  CanvasSnapshotParams,
  Dashboard,
  HistoryGrepParams,
  HistoryReadParams,
  HistorySearchParams,
  HistoryStatsParams,
  RosterList,
  RosterListParams,
} from './resources/canvas.ts';
export type { CronCreateParams, CronList, CronListParams } from './resources/crons.ts';
export type {
  CustomObjectPublishParams,
  CustomObjectRegisterParams,
} from './resources/custom-objects.ts';
export type { EventStreamParams } from './resources/events.ts';
export type { FileListParams, FileReadParams, FileWriteParams } from './resources/files.ts';
export type {
  HumanReasonParams,
  HumanRequestCreateParams,
  HumanRespondParams,
  InboxHistoryParams,
  InboxListParams,
  TicketList,
  TicketProgressParams,
} from './resources/human.ts';
export type { MemoryGetParams, MemoryList, MemoryListParams } from './resources/memory.ts';
export type {
  CredentialInstallParams,
  CredentialProvider,
  ModelConfigUpdateParams,
  ModelCredentialList,
} from './resources/models.ts';
export type {
  JobList,
  NodeCreateAndWaitParams,
  NodeCreateParams,
  NodeEventList,
  NodeList,
  NodeListParams,
  NodeParseParams,
  ReportList,
} from './resources/nodes.ts';
export type { ProfileEnsureParams, ProfileList, ProfileListParams } from './resources/profiles.ts';
export type { ProviderCallParams, ProviderToolsParams } from './resources/providers.ts';
export type { QuestionAnswerParams } from './resources/questions.ts';
export type { RunList, RunParseParams, RunStartParams, TurnList } from './resources/runs.ts';
export type { ShareCreateParams, ShareList, ShareListParams } from './resources/shares.ts';
export type { UploadCreateParams } from './resources/uploads.ts';
export type { WaitParams } from './resources/wait.ts';
