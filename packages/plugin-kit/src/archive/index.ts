/** `@svc/plugin-kit/archive`: the ustar format of plugin archives, for installers and tests. */
export { readTar, type TarEntry, writeTar } from './tar.ts';
