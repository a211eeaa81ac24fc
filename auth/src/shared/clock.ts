/** Milliseconds since the epoch. Injected wherever expiry or rotation matters. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export function epochSeconds(clock: Clock): number {
  return Math.floor(clock() / 1000);
}
