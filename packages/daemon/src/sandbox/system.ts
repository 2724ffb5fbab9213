/**
 * The system every sandbox has, read-only: `/usr` (and `/bin`, `/lib*`, `/sbin` as the host has
 * them: links into `/usr` on a merged-usr system, directories elsewhere), `/opt`, the parts of
 * `/etc` programs read to run (the loader, users and groups by name, locale, time zone, name
 * resolution, certificates, shells' and tools' system-wide settings), a `/proc` of its own PID
 * namespace, a minimal `/dev` and a private `/tmp`. Not `/etc` whole: `/etc/shadow`, SSH host
 * keys and TLS private keys are files a root daemon could otherwise hand its agents.
 *
 * `/etc` is a tmpfs of its own, read-only once filled: its files copied in (`--file`), its
 * directories bound. bwrap reads the whole mount table again after every bind (to find what lies
 * under it), so each bind costs more than the last: 30-odd file binds were half of a sandbox's
 * start (`npm run bench:nodes`, perf). A copy reads as the bind did: a file replaced by a rename
 * (how `/etc` files are updated) was not seen through the bind either, which held the old inode.
 */
import { lstatSync, readdirSync, readlinkSync, statSync } from 'node:fs';

const ETC = [
  'alternatives',
  'bash.bashrc',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'environment',
  'gai.conf',
  'gitconfig',
  'group',
  'host.conf',
  'hostname',
  'hosts',
  'inputrc',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'locale.conf',
  'localtime',
  'magic',
  'magic.mime',
  'mime.types',
  'nsswitch.conf',
  'os-release',
  'passwd',
  'pki',
  'profile',
  'profile.d',
  'protocols',
  'resolv.conf',
  'services',
  'ssl',
  'timezone',
  'vim',
  'wgetrc',
  'xml',
];

/**
 * Directories of private keys inside directories of the list (Debian's `ssl-cert`, Fedora's
 * `pki`): left out, as `shadow` is, since a root daemon's sandboxes could read them otherwise.
 * The directories holding them are shown entry by entry, the rest of them bound whole.
 */
const KEYS = ['/etc/ssl/private', '/etc/pki/tls/private', '/etc/pki/CA/private'];

const TOP = ['bin', 'lib', 'lib32', 'lib64', 'libx32', 'sbin'];

let cached: { head: string[]; tail: string[] } | undefined;

/**
 * bwrap arguments for the system part of every sandbox (the host's layout, read once; `/etc`
 * looked at each time, so a file made since shows): `mounts` first, `remounts` after every other
 * mount (a bind under `/etc` needs its mount point made there first). `give` takes a file bwrap
 * must inherit opened and answers the descriptor number bwrap knows it by; `boundOver` says
 * whether a bind of the plan covers a path (then what it shows there is the plan's, not `/etc`'s).
 */
export function systemArgs(
  give: (opened: { mode: 'r'; path: string }) => string,
  boundOver: (path: string) => boolean,
): { mounts: string[]; remounts: string[] } {
  cached ??= layout();
  const files: string[] = [];
  const dirs: string[] = [];
  for (const name of ETC) {
    const path = `/etc/${name}`;
    // A link (`/etc/os-release` → `../usr/lib/os-release`, `resolv.conf` → a resolver's file)
    // is copied or bound as what it names, so it reads the same inside.
    const info = statSync(path, { throwIfNoEntry: false });
    // No `--perms` (bwrap 0.5): copies read as mode 0666, on a mount no one may write.
    if (info?.isFile()) files.push('--file', give({ mode: 'r', path }), path);
    else if (info?.isDirectory()) showDir(path, dirs, give);
  }
  return {
    mounts: [...cached.head, '--tmpfs', '/etc', ...files, ...dirs, ...cached.tail],
    remounts: boundOver('/etc') ? [] : ['--remount-ro', '/etc'],
  };
}

/** `path` bound whole, or built of its entries where a key directory (`KEYS`) lies below it. */
function showDir(
  path: string,
  out: string[],
  give: (opened: { mode: 'r'; path: string }) => string,
): void {
  if (!KEYS.some((key) => key.startsWith(`${path}/`))) {
    out.push('--ro-bind-try', path, path);
    return;
  }
  out.push('--dir', path);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = `${path}/${entry.name}`;
    if (KEYS.includes(child)) continue;
    if (entry.isSymbolicLink()) out.push('--symlink', readlinkSync(child), child);
    else if (entry.isDirectory()) showDir(child, out, give);
    else if (entry.isFile()) out.push('--file', give({ mode: 'r', path: child }), child);
  }
}

function layout() {
  const head = ['--ro-bind', '/usr', '/usr'];
  for (const name of TOP) {
    const path = `/${name}`;
    const link = linkTarget(path);
    if (link !== null) head.push('--symlink', link, path);
    else head.push('--ro-bind-try', path, path);
  }
  head.push('--ro-bind-try', '/opt', '/opt');
  return { head, tail: ['--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp'] };
}

function linkTarget(path: string): string | null {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true
      ? readlinkSync(path)
      : null;
  } catch {
    return null;
  }
}
