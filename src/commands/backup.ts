import path from 'node:path';
import { Args, Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import type { BackupResult } from '../ipc/protocol.js';

export default class Backup extends SchedCommand {
  static override localOnly = "writes the copy to a file on the daemon's host";
  static override summary = 'Write a consistent copy of the jobs database while the daemon runs.';
  static override description =
    "The daemon copies its SQLite database with SQLite's online backup API, so jobs keep firing meanwhile. " +
    'The copy is written beside FILE and moved into place once complete, with mode 0600. Bring it back ' +
    'with `sched restore FILE`. With a PostgreSQL store, back up with pg_dump instead (the error says how).';

  static override examples = [
    {
      description: 'Copy the database.',
      command: '<%= config.bin %> <%= command.id %> /srv/backups/sched-before-upgrade.db',
    },
    {
      description: 'Replace an earlier copy.',
      command: '<%= config.bin %> <%= command.id %> sched.db.bak --force',
    },
  ];

  static override args = {
    file: Args.string({ description: 'Where to write the copy.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    force: Flags.boolean({ summary: 'Replace FILE if it exists.' }),
  };

  async run(): Promise<BackupResult> {
    const { args, flags } = await this.parse(Backup);
    const client = await this.client();
    // The daemon writes the file, from its own working directory: it gets the path as the user meant it.
    const result = await client.call('store.backup', { file: path.resolve(args.file), force: flags.force });
    if (!this.jsonEnabled())
      this.log(`Wrote ${result.file} (${result.bytes.toLocaleString('en-US')} bytes).`);
    return result;
  }
}
