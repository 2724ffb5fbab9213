import { Svc } from './client.ts';

export { type ClientOptions, type RawRequest, Svc, type VerbOptions } from './client.ts';
export default Svc;
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
export type { AttachmentLink, AttachmentLinkParams } from './resources/attachments.ts';
export type { AuthStatus, ModelAuthReadiness } from './resources/auth.ts';
export type { BashResult, BashRunParams } from './resources/bash.ts';
export type {
  AttentionCounts,
  AttentionItem,
  AttentionList,
  AttentionListParams,
  CanvasNode,
  CanvasPruneParams,
  CanvasPruneResult,
  CanvasSnapshot,
  CanvasSnapshotParams,
  Dashboard,
  GrepHit,
  HistoryGrepParams,
  HistoryGrepResult,
  HistoryReadParams,
  HistoryReadResult,
  HistorySearchParams,
  HistorySearchResult,
  HistoryStats,
  HistoryStatsParams,
  RosterEntry,
  RosterList,
  RosterListParams,
  SearchHit,
  TranscriptTurn,
} from './resources/canvas.ts';
export type {
  Cron,
  CronCreateParams,
  CronDeleteResult,
  CronList,
  CronListParams,
  CronRunResult,
} from './resources/crons.ts';
export type {
  CustomObject,
  CustomObjectAckResult,
  CustomObjectDeleteResult,
  CustomObjectPublishParams,
  CustomObjectPublishResult,
  CustomObjectRegistered,
  CustomObjectRegisterParams,
  ObjectDelivery,
} from './resources/custom-objects.ts';
export type { EventStreamParams, SvcEvent } from './resources/events.ts';
export type {
  FileList,
  FileListParams,
  FileReadParams,
  FileSlice,
  FileWriteParams,
  FileWriteResult,
} from './resources/files.ts';
export type { GrantInfo } from './resources/grant.ts';
export type { HealthStatus } from './resources/health.ts';
export type {
  HumanReasonParams,
  HumanRequest,
  HumanRequestCreateParams,
  HumanRespondParams,
  HumanResponse,
  InboxHistoryParams,
  InboxListParams,
  InboxResponse,
  Ticket,
  TicketList,
  TicketProgressParams,
} from './resources/human.ts';
export type {
  MemoryDocument,
  MemoryDocumentSummary,
  MemoryGetParams,
  MemoryList,
  MemoryListParams,
} from './resources/memory.ts';
export type {
  CredentialInstallParams,
  CredentialProvider,
  ModelConfig,
  ModelConfigUpdateParams,
  ModelCredential,
  ModelCredentialList,
} from './resources/models.ts';
export type {
  Job,
  JobList,
  Mail,
  Node,
  NodeCreateAndWaitParams,
  NodeCreateParams,
  NodeEvent,
  NodeEventList,
  NodeList,
  NodeListParams,
  NodeOutcome,
  NodeParseParams,
  NodeParseResult,
  NodeWaitResult,
  Report,
  ReportList,
  Worktree,
} from './resources/nodes.ts';
export type {
  Profile,
  ProfileEnsureParams,
  ProfileList,
  ProfileListParams,
} from './resources/profiles.ts';
export type {
  ProviderCallParams,
  ProviderCallResult,
  ProviderTool,
  ProviderToolList,
  ProviderToolsParams,
} from './resources/providers.ts';
export type { Question, QuestionAnswerParams } from './resources/questions.ts';
export type {
  Run,
  RunList,
  RunParseParams,
  RunParseResult,
  RunStartParams,
  RunWaitResult,
  Turn,
  TurnList,
} from './resources/runs.ts';
export type {
  Share,
  ShareCreateParams,
  ShareDeleteResult,
  ShareList,
  ShareListParams,
} from './resources/shares.ts';
export type { Liveness, SystemStatus } from './resources/system.ts';
export type { Upload, UploadCreateParams } from './resources/uploads.ts';
export type { WaitParams } from './resources/wait.ts';
