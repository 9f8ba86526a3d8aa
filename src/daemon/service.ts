/**
 * One part of the running daemon: started in order when the daemon starts, stopped in the reverse
 * order when it stops, so whatever a part relies on is still there while it stops.
 */
export interface Service {
  /** Named in logs and errors when a part fails to stop. */
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A service made of two steps, for a part whose own methods are named otherwise. */
export function service(name: string, steps: { start?: () => unknown; stop?: () => unknown }): Service {
  return {
    name,
    start: async () => void (await steps.start?.()),
    stop: async () => void (await steps.stop?.()),
  };
}
