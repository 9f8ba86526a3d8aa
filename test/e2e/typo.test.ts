import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sched, schedBin, useDaemons } from '../support/sched-harness.js';
import { Tmux } from '../support/tmux.js';

describe('a mistyped command in a real terminal (tmux)', () => {
  const daemons = useDaemons(afterAll);
  const tmux = new Tmux();
  let home: string;

  beforeAll(async () => {
    home = daemons.home();
    await daemons.start(home);
    expect((await sched(home, ['add', 'cleanup', '--every', '1h', '--', 'true'])).code).toBe(0);
    await tmux.start(120, 30, { SCHED_HOME: home, NO_COLOR: '1', PS1: '$ ', TZ: 'UTC' });
  });
  afterAll(() => tmux.stop());

  it('given a job named cleanup, when `sched run cleanup` is typed and Enter pressed, then it is refused and the job is untouched', async () => {
    // When the typo is typed in a terminal, as a person would
    await tmux.type(`node ${schedBin} run cleanup; echo "typo exited $?"`);
    let screen = await tmux.screenWhere(
      (s) => /^typo exited \d+/m.test(s) || s.includes('Did you mean'),
      'the answer to the typo',
    );
    // A prompt would be answered the way a hurried person answers it: Enter.
    if (!/^typo exited \d+/m.test(screen)) {
      await tmux.keys('Enter');
      screen = await tmux.screenWhere((s) => /^typo exited \d+/m.test(s), 'the shell after the typo');
    }

    // Then it was refused, naming the command, without asking anything
    expect(screen).toContain('Error: Unknown command "run".');
    expect(screen).toMatch(/^typo exited 2$/m);
    expect(screen).not.toContain('(Y/n)');
    // And the job is still there, active
    const show = await sched(home, ['show', 'cleanup', '--json']);
    expect(show.code).toBe(0);
    expect(show.json.job.state).toBe('active');
  }, 120_000);
});
