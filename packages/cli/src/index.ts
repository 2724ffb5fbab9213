export { CliError, EXIT, UsageError } from './errors.ts';
export { palette, wantsColor } from './output/color.ts';
export type { Io } from './output/printer.ts';
export { renderStatus, type StatusView } from './output/views.ts';
export { parseListenAddress } from './parse/listen.ts';
export { buildProgram, run } from './program.ts';
