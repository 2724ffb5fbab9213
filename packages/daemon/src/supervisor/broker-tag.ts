/**
 * The mark every process a broker starts carries, so the daemon can find them after the broker
 * is gone. A `bash` command runs in a process group of its own and may start a session of its own
 * (`setsid`, `nohup … &`): when its broker dies unasked (a crash, a `kill -9`), the kernel hands
 * such processes to init and no walk of the broker's descendants finds them again. The
 * environment survives that: each child inherits it, and `/proc/<pid>/environ` still shows it.
 */
export const BROKER_TAG_ENV = 'SVC_BROKER';

/**
 * One broker's mark: its node and its pid. The pid alone could be reused by a later broker, the
 * node alone by the node's next broker, whose processes must live on.
 */
export function brokerTag(nodeId: string, pid: number): string {
  return `${nodeId}/${pid}`;
}
