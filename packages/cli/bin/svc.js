#!/usr/bin/env node
// The CLI ships TypeScript sources that Node runs by type stripping, unflagged since Node 22.18
// (and 23.6). Check first so an older Node fails with one clear line, not a syntax error.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18) || (major === 23 && minor < 6)) {
  process.stderr.write(
    `svc: Node.js ${process.versions.node} is too old; svc needs Node.js 22.18 or newer (run it as \`npx svc\` to use the project's Node)\n`,
  );
  process.exit(1);
}
// Start-up is most of a command's time: one bundled file (./bundle.js) whose compiled code Node
// keeps in its compile cache, so a run after the first neither strips types nor compiles. The
// cache is beside the bundle, the checkout's owner's, not in a temp folder others can write.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.(new URL('../dist/compile-cache', import.meta.url).pathname);
const { cliBundle } = await import('./bundle.js');
const bundle = await cliBundle();
await import(bundle ?? '../src/main.ts');
