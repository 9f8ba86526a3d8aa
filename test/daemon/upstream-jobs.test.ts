import { describe, expect, it } from 'vitest';
import type { DependencyEdge } from '../../src/store/store.js';
import { UpstreamJobs } from '../../src/daemon/upstream-jobs.js';

const edge = (job: string, upstream: string): DependencyEdge => ({ job, upstream, on: 'success' });
const linksTo = (...upstreams: string[]) => ({
  after: upstreams.map((job) => ({ job, on: 'success' as const })),
  afterAll: [],
});

/** A store whose listDependencyEdges answers when the test says. */
function deferredEdges() {
  const answers: ((edges: DependencyEdge[]) => void)[] = [];
  return {
    answer: (edges: DependencyEdge[]) => answers.shift()!(edges),
    store: { listDependencyEdges: () => new Promise<DependencyEdge[]>((resolve) => answers.push(resolve)) },
  };
}

/** A set loaded from these edges. */
async function loadedWith(edges: DependencyEdge[]): Promise<UpstreamJobs> {
  const { answer, store } = deferredEdges();
  const upstreams = new UpstreamJobs(store);
  const loading = upstreams.load();
  answer(edges);
  await loading;
  return upstreams;
}

describe('upstream jobs', () => {
  it('Given a set not loaded yet, when asked, then every job may have dependents; once loaded, only the upstreams of the edges do', async () => {
    const { answer, store } = deferredEdges();
    const upstreams = new UpstreamJobs(store);

    const loading = upstreams.load();
    expect(upstreams.mayHaveDependents('anything')).toBe(true);
    answer([edge('b', 'a')]);
    await loading;

    expect(upstreams.mayHaveDependents('a')).toBe(true);
    expect(upstreams.mayHaveDependents('b')).toBe(false);
  });

  it('Given a job written while the set was being read, when the read answers without it, then its upstreams are kept', async () => {
    const { answer, store } = deferredEdges();
    const upstreams = new UpstreamJobs(store);

    const loading = upstreams.load();
    upstreams.jobChanged({ after: [], afterAll: ['x'] });
    answer([]);
    await loading;

    expect(upstreams.mayHaveDependents('x')).toBe(true);
  });

  it('Given an upstream the store found without dependents, when no job changed since the question, then it is dropped, and when one did, it is kept', async () => {
    const upstreams = await loadedWith([edge('b', 'a'), edge('d', 'c')]);

    const asked = upstreams.mark();
    upstreams.noDependents('a', asked);
    const askedBeforeChange = upstreams.mark();
    upstreams.jobChanged(linksTo('c'));
    upstreams.noDependents('c', askedBeforeChange);

    expect(upstreams.mayHaveDependents('a')).toBe(false);
    expect(upstreams.mayHaveDependents('c')).toBe(true);
  });

  it('Given a loaded set, when a job written elsewhere names a new upstream, then that upstream may have dependents at once', async () => {
    const upstreams = await loadedWith([]);
    expect(upstreams.mayHaveDependents('u')).toBe(false);

    upstreams.jobChanged(linksTo('u'));

    expect(upstreams.mayHaveDependents('u')).toBe(true);
  });
});
