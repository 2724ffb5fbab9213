import { type Io, run } from '../src/index.ts';

/**
 * `svc …args` run in this process against the home `home()` names when it runs (a test file's
 * home is often made in `beforeAll`), no stdin; answers the exit code and the output.
 */
export function inProcessSvc(
  home: () => string,
): (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }> {
  return async (...args) => {
    let stdout = '';
    let stderr = '';
    const io: Io = {
      stdout: (text) => {
        stdout += text;
      },
      stderr: (text) => {
        stderr += text;
      },
      stdoutIsTTY: false,
      env: { SVC_HOME: home() },
    };
    const code = await run(['node', 'svc', ...args], io);
    return { code, stdout, stderr };
  };
}
