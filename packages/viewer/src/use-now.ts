import { useEffect, useState } from 'preact/hooks';

/** The time, ticking every `ms` while `on` (a running node's duration counts up). */
export function useNow(on: boolean, ms = 1000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [on, ms]);
  return now;
}
