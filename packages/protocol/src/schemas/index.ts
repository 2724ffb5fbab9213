export * from './bash.ts';
export * from './common.ts';
export * from './events.ts';
export * from './system.ts';
export * from './tokens.ts';
