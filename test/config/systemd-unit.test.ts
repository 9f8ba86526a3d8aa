import { describe, expect, it } from 'vitest';
import {
  enableCommands,
  environmentFileLine,
  quoteWord,
  renderSystemdUnit,
  type UnitOptions,
} from '../../src/config/systemd-unit.js';

const base: UnitOptions = {
  scope: 'user',
  nodePath: '/usr/bin/node',
  schedBin: '/opt/sched/bin/run.js',
  grace: '30s',
  graceMs: 30_000,
  environment: {},
  daemonArgs: [],
};

function directives(unit: string): string[] {
  return unit.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

describe('renderSystemdUnit', () => {
  it('runs node and sched by absolute path, restarting on failure', () => {
    const unit = renderSystemdUnit(base);
    expect(directives(unit)).toEqual(
      expect.arrayContaining([
        'ExecStart=/usr/bin/node /opt/sched/bin/run.js daemon run --grace 30s',
        'Restart=on-failure',
        'KillMode=mixed',
        'NoNewPrivileges=yes',
        'WantedBy=default.target',
      ]),
    );
  });

  it.each(['user', 'system'] as const)(
    'leaves a %s daemon the service manager’s umask (0022 by default), so the files its jobs create are 0644 as under cron',
    (scope) => {
      const unit = renderSystemdUnit({ ...base, scope });
      expect(directives(unit).filter((line) => line.startsWith('UMask='))).toEqual([]);
    },
  );

  it('stops after the grace period has had time to run out', () => {
    expect(renderSystemdUnit({ ...base, grace: '2m', graceMs: 120_000 })).toContain('TimeoutStopSec=135s');
  });

  it('gives a system unit its state and runtime directories and more hardening', () => {
    const unit = renderSystemdUnit({
      ...base,
      scope: 'system',
      environment: { SCHED_HOME: '/var/lib/sched', SCHED_SOCKET: '/run/sched/sched.sock' },
    });
    expect(directives(unit)).toEqual(
      expect.arrayContaining([
        'StateDirectory=sched',
        'RuntimeDirectory=sched',
        'ProtectKernelModules=yes',
        'Environment=SCHED_HOME=/var/lib/sched',
        'Environment=SCHED_SOCKET=/run/sched/sched.sock',
        'After=network-online.target',
        'WantedBy=multi-user.target',
      ]),
    );
  });

  it('given an environment file, reads it with EnvironmentFile=', () => {
    const unit = renderSystemdUnit({ ...base, environmentFile: '/etc/systemd/system/sched.env' });
    expect(directives(unit)).toContain('EnvironmentFile=/etc/systemd/system/sched.env');
  });

  it('passes extra daemon flags, quoted for systemd', () => {
    const unit = renderSystemdUnit({
      ...base,
      daemonArgs: ['--store', 'postgres://sched:p%w$x@db/sched', '--socket', '/run/my sched.sock'],
    });
    expect(unit).toContain('--store postgres://sched:p%%w$$x@db/sched --socket "/run/my sched.sock"\n');
  });
});

describe('environmentFileLine', () => {
  it('puts a value in single quotes, where systemd reads $, % and backslashes literally', () => {
    expect(environmentFileLine('SCHED_STORE', 'postgres://u:p$w%\\x@db/sched')).toBe(
      "SCHED_STORE='postgres://u:p$w%\\x@db/sched'\n",
    );
  });

  it('puts a value holding a single quote in double quotes, escaping what systemd unescapes there', () => {
    expect(environmentFileLine('SCHED_STORE', `postgres://u:it's"$\\@db/s`)).toBe(
      `SCHED_STORE="postgres://u:it's\\"\\$\\\\@db/s"\n`,
    );
  });
});

describe('quoteWord', () => {
  it('leaves plain words alone and quotes the rest', () => {
    expect(quoteWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(quoteWord('/opt/my sched/run.js')).toBe('"/opt/my sched/run.js"');
    expect(quoteWord('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
  });

  it('escapes specifiers everywhere and variables only on command lines', () => {
    expect(quoteWord('a%b$c')).toBe('a%%b$$c');
    expect(quoteWord('A=a%b$c', { commandLine: false })).toBe('A=a%%b$c');
  });
});

describe('enableCommands', () => {
  it('uses the user manager and lingering for a user unit', () => {
    expect(enableCommands('user', 'ada')).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable --now sched.service',
      'loginctl enable-linger ada',
      'journalctl --user -u sched -f',
    ]);
  });
});
