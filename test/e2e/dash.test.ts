import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeHome,
  removeHome,
  sched,
  schedBin,
  startDaemon,
  waitFor,
  type RunningDaemon,
} from '../support/sched-harness.js';
import { Tmux } from '../support/tmux.js';

const row = (screen: string, name: string) =>
  screen.split('\n').find((line) => line.slice(2).startsWith(`${name} `)) ?? '';

describe('sched dash in a real terminal (tmux)', () => {
  let home: string;
  let daemon: RunningDaemon;
  const tmux = new Tmux();

  beforeAll(async () => {
    home = makeHome();
    daemon = await startDaemon(home);
    expect(
      (await sched(home, ['add', 'alpha', '--every', '1h', '--label', 'team=ops', '--', 'true'])).code,
    ).toBe(0);
    await tmux.start(100, 30, { SCHED_HOME: home, NO_COLOR: '1', PS1: '$ ', TZ: 'UTC' });
  });

  afterAll(async () => {
    await tmux.stop();
    await daemon.stop();
    removeHome(home);
  });

  it('given a daemon, when sched dash runs, then it follows jobs and runs live, p pauses, it survives a restart, and q restores the terminal', async () => {
    // Given the dashboard, started from a shell that remembers its terminal settings
    await tmux.type('echo before-dash; S=$(stty -g)');
    await tmux.type(
      `node ${schedBin} dash; echo "dash exited $? same-tty=$([ "$S" = "$(stty -g)" ] && echo yes || echo no)"`,
    );
    let screen = await tmux.screenWhere(
      (s) => s.includes('● live') && row(s, 'alpha') !== '',
      'the live dashboard',
    );
    expect(await tmux.flag('alternate_on')).toBe('1');
    expect(screen).toContain('1 jobs: 1 active, 0 paused');

    // When a job is added from another shell, then it appears
    await sched(home, ['add', 'beta', '--every', '1h', '--', 'sh', '-c', 'sleep 2']);
    screen = await tmux.screenWhere(
      (s) => row(s, 'beta').includes('every 1h'),
      'the job added from another shell',
    );
    expect(screen).toContain('2 jobs: 2 active, 0 paused');

    // When one of its runs starts and ends, then its state changes on screen
    await sched(home, ['trigger', 'beta']);
    await tmux.screenWhere((s) => /● beta\s+#1/.test(s) && s.includes('RUNNING NOW (1)'), 'the run running');
    screen = await tmux.screenWhere((s) => row(s, 'beta').includes('✓ 2s'), 'the run succeeded in its row');
    expect(screen).toContain('nothing running');

    // When p is pressed on the selected job (alpha, the first row), then the daemon has it paused
    await tmux.keys('p');
    await waitFor(async () => (await sched(home, ['show', 'alpha', '--json'])).json?.job?.state === 'paused');
    screen = await tmux.screenWhere((s) => row(s, 'alpha').includes('‖ paused'), 'alpha paused');
    expect(screen).toContain('Paused alpha; p resumes it.');
    console.log(`\n── sched dash at 100x30 (tmux capture-pane) ──\n${screen}\n── end of capture ──`);

    // When the terminal shrinks to 80x24, then the dashboard lays itself out again within it
    await tmux.run('resize-window', '-t', tmux.session, '-x', '80', '-y', '24');
    screen = await tmux.screenWhere(
      // 23 lines, one short of the terminal: the footer is on line 23.
      (s) => s.split('\n')[22]?.startsWith('↑↓ move') === true && row(s, 'beta') !== '',
      'the dashboard at 80x24',
    );
    expect(await tmux.flag('window_width')).toBe('80');
    expect(Math.max(...screen.split('\n').map((line) => [...line].length))).toBeLessThan(80);

    // When the daemon restarts, then the dashboard says it is reconnecting, and comes back
    await daemon.stop();
    await tmux.screenWhere((s) => s.includes('reconnecting…'), 'reconnecting');
    daemon = await startDaemon(home);
    await tmux.screenWhere(
      (s) => s.includes('● live') && row(s, 'beta') !== '',
      'live again after the restart',
      30_000,
    );

    // When q is pressed, then the shell is back as it was: main screen, cursor, terminal modes
    await tmux.keys('q');
    // The typed command line holds "dash exited $?" too; wait for the line the shell printed after dash (on
    // a busy machine keys typed before the shell drew its prompt push that prompt onto the output's line).
    screen = await tmux.screenWhere((s) => /^(\$ )?dash exited \d+ same-tty=/m.test(s), 'the shell after q');
    expect(screen).toContain('dash exited 0 same-tty=yes');
    expect(screen).toContain('before-dash');
    expect(screen).not.toContain('RUNNING NOW');
    expect(await tmux.flag('alternate_on')).toBe('0');
    expect(await tmux.flag('cursor_flag')).toBe('1');
  }, 180_000);

  it('given no terminal, when sched dash runs, then it refuses in one line and points to sched watch', async () => {
    const result = await sched(home, ['dash']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'Error: sched dash needs an interactive terminal.\nHint: For events in scripts or pipes, use `sched watch` (with --json for JSON lines).\n',
    );
  });
});
