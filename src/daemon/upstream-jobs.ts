import type { Job } from '../core/job.js';
import type { Store } from '../store/store.js';

/**
 * The jobs others run after (`--after`, `--after-all`), as this node knows them, so the end of a run of any
 * other job costs no query for its dependents. The set may hold more than the store does, never less once
 * loaded: a job written here or through another node (its change announced by the store) adds its
 * upstreams at once; an upstream is dropped only when the store said it has no dependents and no change
 * came in meanwhile. Until it is loaded, and after changes may have been missed, every job may be one.
 */
export class UpstreamJobs {
  private ids: Set<string> | null = null;
  /** Upstreams heard of while a load is under way: its answer may predate them. */
  private heardWhileLoading: Set<string> | null = null;
  private changes = 0;

  constructor(private readonly store: Pick<Store, 'listDependencyEdges'>) {}

  /**
   * Reads the set whole from the store (at start, and when changes may have been missed); until the answer
   * is in, every job may be an upstream.
   */
  async load(): Promise<void> {
    const heard = new Set<string>();
    this.ids = null;
    this.heardWhileLoading = heard;
    try {
      const edges = await this.store.listDependencyEdges();
      if (this.heardWhileLoading !== heard) return;
      this.ids = new Set([...edges.map((edge) => edge.upstream), ...heard]);
    } finally {
      if (this.heardWhileLoading === heard) this.heardWhileLoading = null;
    }
  }

  mayHaveDependents(jobId: string): boolean {
    return this.ids === null || this.ids.has(jobId);
  }

  /** A job was written (here or on another node): the jobs it runs after are upstreams. */
  jobChanged(job: Pick<Job, 'after' | 'afterAll'>): void {
    this.changes += 1;
    for (const upstream of [...job.after.map((link) => link.job), ...job.afterAll]) {
      this.ids?.add(upstream);
      this.heardWhileLoading?.add(upstream);
    }
  }

  /** A mark to pass to `noDependents` after asking the store. */
  mark(): number {
    return this.changes;
  }

  /** The store, asked after `mark`, found no dependent of `jobId`: dropped unless a job changed since. */
  noDependents(jobId: string, mark: number): void {
    if (mark === this.changes && this.heardWhileLoading === null) this.ids?.delete(jobId);
  }
}
