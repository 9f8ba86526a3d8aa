import { afterEach, describe, expect, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { event, makeJob, makeRun, NOW, snapshot } from './fixtures.js';
import { FakeBackend, renderDashboard } from './render.js';

const ARROW_DOWN = '\u001B[B';
const ENTER = '\r';
const ESC = '\u001B';

const alpha = makeJob({ name: 'alpha' });
const beta = makeJob({ name: 'beta', labels: { team: 'ops' } });
const gamma = makeJob({ name: 'gamma' });
const betaRun = makeRun(beta, { stdoutTail: 'beta says hi\n' });

async function started(backend = new FakeBackend(new Map([[beta.id, [betaRun]]]))) {
  const dash = renderDashboard(backend, NOW);
  backend.dispatch({ type: 'snapshot', snapshot: snapshot([alpha, beta, gamma]), now: NOW });
  await dash.frameWhere((frame) => frame.includes('● live') && frame.includes('gamma'));
  return { dash, backend };
}

const selectedRow = (frame: string) => frame.split('\n').find((line) => /^› (alpha|beta|gamma)/.test(line));

afterEach(() => cleanup());

describe('the dashboard, driven by keys', () => {
  it('given the daemon not read yet, when drawn, then it says it is connecting', async () => {
    const dash = renderDashboard(new FakeBackend(), NOW);
    expect(await dash.frameWhere((frame) => frame.includes('◌ connecting…'))).toContain('No jobs yet');
  });

  it('given the table, when j and the down arrow are pressed, then the selection moves down a row each', async () => {
    const { dash } = await started();
    dash.press('j');
    expect(selectedRow(await dash.frameWhere((f) => selectedRow(f)?.includes('beta') ?? false))).toMatch(
      /^› beta/,
    );
    dash.press(ARROW_DOWN);
    expect(selectedRow(await dash.frameWhere((f) => selectedRow(f)?.includes('gamma') ?? false))).toMatch(
      /^› gamma/,
    );
  });

  it('given a job selected, when Enter and then Enter again are pressed, then its detail and then its run output show', async () => {
    const { dash, backend } = await started();
    dash.press('j');
    dash.press(ENTER);
    const detail = await dash.frameWhere((f) => f.includes('‹ beta') && f.includes('✓ succeeded'));
    expect(detail).toContain('RUNS (1)');
    expect(backend.historiesAsked).toContain(beta.id);
    dash.press(ENTER);
    // The run view reads the run; the job's history, if it lands after the view opened (a loaded machine),
    // may fill it in first.
    await dash.frameWhere((f) => f.includes('Reading the run…') || f.includes('beta says hi'));
    expect(backend.effects).toEqual([{ kind: 'load-run', runId: betaRun.id }]);
    backend.dispatch({ type: 'run-loaded', run: betaRun });
    expect(await dash.frameWhere((f) => f.includes('beta says hi'))).toContain(`run ${betaRun.id}`);
    dash.press(ESC);
    await dash.frameWhere((f) => f.includes('‹ beta') && f.includes('RUNS (1)'));
    dash.press(ESC);
    expect(selectedRow(await dash.frameWhere((f) => f.includes('JOBS 3')))).toMatch(/^› beta/);
  });

  it('given the table, when / and a label are typed, then only matching jobs remain, and Esc brings all back', async () => {
    const { dash } = await started();
    dash.press('/');
    for (const key of 'ops') dash.press(key);
    const filtered = await dash.frameWhere((f) => f.includes('filter: ops') && !f.includes('gamma'));
    expect(filtered).toContain('/ ops▏');
    expect(filtered).toMatch(/^› beta/m);
    dash.press(ESC);
    await dash.frameWhere((f) => f.includes('gamma') && !f.includes('filter:'));
  });

  it('given a job selected, when t and p are pressed, then it is triggered and paused, and the result is shown', async () => {
    const { dash, backend } = await started();
    dash.press('t');
    dash.press('p');
    await dash.frameWhere(() => backend.effects.length === 2);
    expect(backend.effects).toEqual([
      { kind: 'trigger', jobId: alpha.id, name: 'alpha' },
      { kind: 'pause', jobId: alpha.id, name: 'alpha' },
    ]);
    backend.dispatch({ type: 'flash', text: 'Paused alpha; p resumes it.', tone: 'info', now: NOW });
    backend.dispatch({
      type: 'events',
      events: [event('job:updated', { ...alpha, version: 2, state: 'paused', nextRunAt: null })],
      now: NOW,
    });
    const frame = await dash.frameWhere((f) => f.includes('Paused alpha'));
    expect(selectedRow(frame)).toContain('‖ paused');
  });

  it('given a job selected, when c is pressed, then it asks first and cancels only on y', async () => {
    const { dash, backend } = await started();
    dash.press('c');
    await dash.frameWhere((f) => f.includes('Cancel job alpha for good?'));
    dash.press('n');
    await dash.frameWhere((f) => !f.includes('Cancel job alpha'));
    expect(backend.effects).toEqual([]);
    dash.press('c');
    await dash.frameWhere((f) => f.includes('Cancel job alpha for good?'));
    dash.press('y');
    await dash.frameWhere(() => backend.effects.length === 1);
    expect(backend.effects).toEqual([{ kind: 'cancel', jobId: alpha.id, name: 'alpha' }]);
  });

  it('given a run running, when Tab and x are pressed, then that run is killed', async () => {
    const { dash, backend } = await started();
    const running = makeRun(gamma, { state: 'running', finishedAt: null, exitCode: null });
    backend.dispatch({ type: 'events', events: [event('run:fired', running)], now: NOW });
    await dash.frameWhere((f) => f.includes('RUNNING NOW (1)'));
    dash.press('\t');
    await dash.frameWhere((f) => f.includes('› RUNNING NOW (1)'));
    dash.press('x');
    await dash.frameWhere(() => backend.effects.length === 1);
    expect(backend.effects).toEqual([{ kind: 'kill', runId: running.id, jobName: 'gamma' }]);
  });

  it('given keys that arrive together, when read, then each one counts', async () => {
    const { dash } = await started();
    dash.press('jj');
    expect(selectedRow(await dash.frameWhere((f) => selectedRow(f)?.includes('gamma') ?? false))).toMatch(
      /^› gamma/,
    );
  });

  it('given ? pressed, when any key follows, then the help shows and goes', async () => {
    const { dash } = await started();
    dash.press('?');
    await dash.frameWhere((f) => f.includes('KEYS') && f.includes('cancel the job (asks first)'));
    dash.press('j');
    await dash.frameWhere((f) => f.includes('JOBS 3'));
  });

  it('given a job added elsewhere, when its event arrives, then it appears in its place without moving the selection', async () => {
    const { dash, backend } = await started();
    dash.press('j');
    await dash.frameWhere((f) => selectedRow(f)?.includes('beta') ?? false);
    backend.dispatch({
      type: 'events',
      events: [event('job:created', makeJob({ name: 'aardvark' }))],
      now: NOW,
    });
    const frame = await dash.frameWhere((f) => f.includes('aardvark'));
    expect(selectedRow(frame)).toMatch(/^› beta/);
  });

  it('given the dashboard, when q is pressed, then it exits and stops the backend', async () => {
    const { dash, backend } = await started();
    dash.press('q');
    await dash.frameWhere(() => backend.stopped);
  });
});
