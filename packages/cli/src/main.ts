import { run } from './program.ts';

// `svc events | head` closes stdout early; that is the reader's choice, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const code = await run(process.argv);
// Exit explicitly once output is flushed: the client's keep-alive connection to the daemon
// would otherwise hold the process open for seconds after the answer is printed.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
