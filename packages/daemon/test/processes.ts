import { readdirSync, readFileSync } from 'node:fs';

/**
 * Host pids whose command line (NUL-separated) passes `test`: a process in a sandbox's own pid
 * namespace is found here too, as the host sees it.
 */
export function processesWhere(test: (cmdline: string) => boolean): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Host pids whose command line holds `mark`. */
export const processesWith = (mark: string) => processesWhere((line) => line.includes(mark));

/**
 * A shell's line starting `sleep <seconds>` in a session of its own, echoing its pid once it is
 * there: the shell exits no sooner (else its group's kill could come first).
 */
export const escaped = (seconds: string) =>
  `f=/tmp/escaped-$$; setsid sh -c "echo \\$\\$ > $f.new && mv $f.new $f; exec sleep ${seconds}" > /dev/null 2>&1 &
   i=0; while [ ! -s $f ] && [ $i -lt 2000 ]; do sleep 0.005; i=$((i+1)); done; cat $f`;
