import { EventEmitter } from 'node:events';
import type { Job } from '../core/job.js';
import type { Run } from '../core/run.js';

/** The daemon's one observable surface: logs, the socket's subscribe stream and tests all read it. */
export interface DaemonEventMap {
  'daemon:started': [{ pid: number; at: number; metricsAddress: string | null }];
  'daemon:stopping': [{ at: number; reason: string }];
  'job:created': [Job];
  'job:updated': [Job];
  'job:cancelled': [Job];
  'run:fired': [Run];
  'run:started': [{ runId: string; jobId: string; pid: number | null; at: number }];
  'run:output': [{ runId: string; stream: 'stdout' | 'stderr'; data: string }];
  'run:finished': [Run];
  'run:lost': [Run];
  'run:retry-scheduled': [Run];
  /** A failed attempt that no policy retries: the dead-letter. */
  'run:dead': [Run];
  'tick:late': [{ jobId: string; dueAt: number; firedAt: number }];
  'scheduler:error': [{ error: Error }];
  'retention:pruned': [{ succeeded: number; failed: number; beyondCap: number; audit: number; jobs: number }];
}

export class DaemonEvents extends EventEmitter<DaemonEventMap> {}
