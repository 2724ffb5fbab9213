/**
 * sandbox.test.ts again with the Node executor in every node's sandbox (the fall-back where the
 * C executor cannot be built): the daemon's plans name none (`SVC_SANDBOX_EXECUTOR=node`).
 */
process.env.SVC_SANDBOX_EXECUTOR = 'node';
await import('./sandbox.test.ts');
