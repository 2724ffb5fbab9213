export interface Palette {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

const sgr =
  (open: number, close: number) =>
  (text: string): string =>
    `\x1b[${open}m${text}\x1b[${close}m`;

const COLORS: Palette = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
};

const identity = (text: string): string => text;
const PLAIN: Palette = {
  bold: identity,
  dim: identity,
  red: identity,
  green: identity,
  yellow: identity,
};

/**
 * Colour only for a terminal, and never when `NO_COLOR` is set to anything non-empty
 * (https://no-color.org) or `TERM=dumb`; `FORCE_COLOR` (non-zero) forces it on.
 */
export function wantsColor(isTTY: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return isTTY === true && env.TERM !== 'dumb';
}

export function palette(enabled: boolean): Palette {
  return enabled ? COLORS : PLAIN;
}
