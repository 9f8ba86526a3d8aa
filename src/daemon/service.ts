/**
 * One part of the running daemon: started in order when the daemon starts, stopped in the reverse
 * order when it stops, so whatever a part relies on is still there while it stops.
 */
export interface Service {
  /** Named in logs and errors when a part fails to start or stop. */
  readonly name: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}
