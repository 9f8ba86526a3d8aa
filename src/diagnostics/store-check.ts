import fs from 'node:fs';
import path from 'node:path';
import { sqliteQuickCheck } from '../store/sqlite/quick-check.js';
import { failure, pass, START_FIX, type Check } from './check.js';

/**
 * A SQLite store is checked from its file, so that doctor can say what is wrong while no daemon runs; any
 * other store only the daemon can check.
 */
export async function storeCheck(store: string, daemonUp: boolean): Promise<Check> {
  if (!store.startsWith('sqlite:'))
    return daemonUp
      ? pass('store', `${store.replace(/\/\/[^@/]*@/, '//***@')}, in use by the daemon`)
      : {
          name: 'store',
          status: 'unknown',
          message: `${store.replace(/\/\/[^@/]*@/, '//***@')}: only the daemon checks this store`,
          fix: null,
        };
  const file = store.replace(/^sqlite:(\/\/)?/, '');
  if (!fs.existsSync(file))
    return failure('store', `no database at ${file}`, `The daemon creates it when it starts. ${START_FIX}`);
  try {
    fs.accessSync(file, fs.constants.R_OK | fs.constants.W_OK);
    // WAL mode writes its -wal and -shm files next to the database.
    fs.accessSync(path.dirname(file), fs.constants.W_OK);
  } catch {
    return failure(
      'store',
      `${file} (or its directory) is not writable by you`,
      `Give the daemon's user write access to ${path.dirname(file)}.`,
    );
  }
  try {
    const result = await sqliteQuickCheck(file);
    if (result !== 'ok')
      return failure(
        'store',
        `${file} fails SQLite's quick_check: ${result}`,
        'Stop the daemon and restore the database from a backup.',
      );
  } catch (error) {
    return failure(
      'store',
      `cannot read ${file}: ${(error as Error).message}`,
      'Check that it is a sched database and that you can read it.',
    );
  }
  return pass('store', `${file}, writable, quick_check ok`);
}
