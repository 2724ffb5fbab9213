import type { EventLog } from '../events/log.ts';
import type { Store } from '../store/index.ts';

/** What the upload operations use; `dir` is `SVC_HOME/uploads`, the bytes' directory. */
export interface UploadDeps {
  store: Pick<Store, 'db' | 'uploads'>;
  events: EventLog;
  dir: string;
}
