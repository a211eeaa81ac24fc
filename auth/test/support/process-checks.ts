import { readdirSync, readFileSync } from 'node:fs';

/** Processes whose command line mentions `text` (a demo's children all name its folders); Linux /proc. */
export function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Whether a process of that id still runs (or is a zombie not yet reaped). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
