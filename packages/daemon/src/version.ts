import { readFileSync } from 'node:fs';

/** This package's version, reported by `/v1/health`, `/v1/status` and the OpenAPI document. */
export const DAEMON_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
