import { Args } from '@oclif/core';
import type { RestoreResult } from '../backup/restore.js';
import { SchedCommand } from '../cli/base-command.js';
import { SchedError } from '../core/errors.js';

export default class Restore extends SchedCommand {
  static override localOnly = "replaces the database file of this host's stopped daemon";
  static override summary = 'Put a backup back in place of the jobs database (the daemon must be stopped).';
  static override description =
    "Checks that FILE is a sched database that passes SQLite's integrity_check, keeps the current database " +
    'aside as <db>.replaced-<time> (it is never deleted), and puts a copy of FILE in its place with mode ' +
    '0600. Refused while a daemon runs on this home or database; nothing is changed when a check fails. ' +
    'Start the daemon afterwards: it brings an older backup up to date itself.';

  static override examples = [
    {
      description: "Bring back last night's copy.",
      command: [
        '<%= config.bin %> daemon stop',
        '<%= config.bin %> <%= command.id %> /srv/backups/sched-20261202T030000.000Z.db',
        'systemctl --user start sched',
      ].join('\n'),
    },
  ];

  static override args = {
    file: Args.string({ description: 'The backup to restore.', required: true, ignoreStdin: true }),
  };

  async run(): Promise<RestoreResult> {
    const { args } = await this.parse(Restore);
    const [{ loadConfig }, { resolveLocations }, { restoreDatabase }] = await Promise.all([
      import('../config/load.js'),
      import('../ipc/locations.js'),
      import('../backup/restore.js'),
    ]);
    const { store } = loadConfig(process.env);
    if (!store.startsWith('sqlite:')) {
      throw new SchedError(
        'INVALID_STATE',
        'sched restore puts back SQLite databases; this store is PostgreSQL.',
        {
          hint: 'Restore a pg_dump copy with pg_restore (stop the daemons first).',
        },
      );
    }
    const result = await restoreDatabase({
      file: args.file,
      database: store.replace(/^sqlite:(\/\/)?/, ''),
      homeLockPath: resolveLocations(process.env).lockPath,
      now: new Date(),
    });
    if (!this.jsonEnabled()) {
      this.log(
        `Restored ${result.restored} to ${result.database} (${result.jobs} job${result.jobs === 1 ? '' : 's'}).`,
      );
      if (result.replacedKeptAs !== null)
        this.log(`The database it replaced is kept as ${result.replacedKeptAs}.`);
      this.log(`Start the daemon to use it: \`${this.config.bin} daemon start\`.`);
    }
    return result;
  }
}
