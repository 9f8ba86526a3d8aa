import path from 'node:path';
import { SchedError } from '../../core/errors.js';
import type { BackupResult } from '../../ipc/protocol.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';

/**
 * `sched backup FILE`: the daemon holds the database, so it makes the copy, through its own connection,
 * while it goes on firing. A store that cannot copy itself (PostgreSQL) is answered with the command
 * that does, its password left out.
 */
export class StoreBackup {
  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      events: DaemonEvents;
      /** The store as status shows it, password redacted: what pg_dump is pointed at. */
      storeDisplay: string;
    },
  ) {}

  async take(file: string, force: boolean): Promise<BackupResult> {
    const { store, clock, events, storeDisplay } = this.deps;
    if (!path.isAbsolute(file)) {
      throw new SchedError('VALIDATION_FAILED', `The backup file must be an absolute path (got ${file}).`, {
        hint: 'sched backup resolves it for you; a client speaking to the socket directly must too.',
      });
    }
    if (store.backupTo === undefined) throw noOnlineBackup(storeDisplay, file);
    const takenAt = clock.now();
    const written = await store.backupTo(file, { force });
    events.emit('backup:written', { ...written, takenAt, scheduled: false });
    return { ...written, takenAt };
  }
}

function noOnlineBackup(storeDisplay: string, file: string): SchedError {
  const command = `pg_dump --format=custom --file=${quote(file)} ${quote(withoutPassword(storeDisplay))}`;
  return new SchedError(
    'INVALID_STATE',
    `The daemon keeps its jobs in PostgreSQL (${storeDisplay}); sched backup copies SQLite stores only.`,
    {
      hint: `Back the database up with pg_dump (the password from PGPASSWORD or ~/.pgpass, not the URL): ${command}`,
      details: { store: storeDisplay, command },
    },
  );
}

/** pg_dump takes the password from PGPASSWORD or ~/.pgpass when the URL has none. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

function quote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
