import type { TcpInfo } from '../ports.ts';
import type { ProfileService } from '../profiles/service.ts';
import type { Store } from '../store/index.ts';
import type { DirectoryKeys } from './keys.ts';

/** What the directory's operations use. */
export interface DirectoryDeps {
  store: Pick<Store, 'nodes' | 'plugins'>;
  keys: DirectoryKeys;
  tcp: () => TcpInfo | null;
  profiles: Pick<ProfileService, 'find'>;
}
