/**
 * How file-system failures answer: `ApiError`s naming only the path the caller gave (the route
 * answers them, the node tools hand them to the model); a condition of the host stays its own.
 */
import { ApiError } from '../errors.ts';

/** A file-system call whose failure is answered as the refusal it is, naming the path given. */
export async function fsCall<T>(promise: Promise<T>, given: string): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw fsError(error, given);
  }
}

/**
 * What a failed file-system call means to the caller. A condition of the host (a full disk, an
 * I/O error) stays what it is: an error that is not the caller's.
 */
export function fsError(error: unknown, given: string): unknown {
  switch (errnoOf(error)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return missing(given);
    case 'EACCES':
    case 'EPERM':
      return new ApiError('forbidden', `permission denied: ${show(given)}`, { field: 'path' });
    case 'EROFS':
      return new ApiError('forbidden', `${show(given)} is on a read-only file system`, {
        field: 'path',
      });
    case 'EISDIR':
      return invalidPath(`${show(given)} is a directory`);
    case 'ELOOP':
      return invalidPath(`${show(given)} is a symbolic link, or leads through too many`);
    case 'ENAMETOOLONG':
      return invalidPath(`${show(given)} is too long a path`);
    case 'ENXIO':
    case 'ENODEV':
    // A procfs or sysfs file that refuses a plain read (`/proc/kmsg`, `/proc/self/pagemap`).
    // EIO is left a failure of the host: on a regular file it is the disk's.
    case 'EAGAIN':
    case 'EINVAL':
      return invalidPath(`${show(given)} is not a regular file`);
    case 'EBUSY':
      return new ApiError('conflict', `${show(given)} is in use (a mount point?)`, {
        field: 'path',
      });
    default:
      return error;
  }
}

export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function missing(given: string): ApiError {
  return new ApiError('not_found', `${show(given)} does not exist`, { field: 'path' });
}

export function invalidPath(message: string): ApiError {
  return new ApiError('validation_failed', message, { field: 'path' });
}

export function show(path: string): string {
  return JSON.stringify(path.length > 300 ? `${path.slice(0, 300)}…` : path);
}
