/** The daemon's only source of time, so tests can hand it another. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
