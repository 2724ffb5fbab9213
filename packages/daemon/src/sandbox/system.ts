/**
 * The system every sandbox has, read-only: `/usr` (and `/bin`, `/lib*`, `/sbin` as the host has
 * them: links into `/usr` on a merged-usr system, directories elsewhere), `/opt`, the parts of
 * `/etc` programs read to run (the loader, users and groups by name, locale, time zone, name
 * resolution, certificates, shells' and tools' system-wide settings), a `/proc` of its own PID
 * namespace, a minimal `/dev` and a private `/tmp`. Not `/etc` whole: `/etc/shadow` and SSH host
 * keys are files a root daemon could otherwise hand its agents.
 */
import { lstatSync, readlinkSync } from 'node:fs';

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

const TOP = ['bin', 'lib', 'lib32', 'lib64', 'libx32', 'sbin'];

let cached: string[] | undefined;

/** bwrap arguments for the system part of every sandbox (the host's layout, read once). */
export function systemArgs(): string[] {
  if (cached !== undefined) return cached;
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const name of TOP) {
    const path = `/${name}`;
    const link = linkTarget(path);
    if (link !== null) args.push('--symlink', link, path);
    else args.push('--ro-bind-try', path, path);
  }
  args.push('--ro-bind-try', '/opt', '/opt');
  for (const name of ETC) {
    const path = `/etc/${name}`;
    // A link (`/etc/os-release` → `../usr/lib/os-release`, `resolv.conf` → a resolver's file)
    // is bound by what it names, so it reads the same inside.
    args.push('--ro-bind-try', path, path);
  }
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  cached = args;
  return args;
}

function linkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}
