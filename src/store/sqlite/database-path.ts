import fs from 'node:fs';
import path from 'node:path';

/**
 * The file a path names, symlinks resolved; a file not created yet resolves through its folder. Two
 * spellings of one database (a symlink, `..`) resolve alike.
 */
export function resolveDatabasePath(databasePath: string): string {
  const absolute = path.resolve(databasePath);
  try {
    return fs.realpathSync(absolute);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(absolute)), path.basename(absolute));
    } catch {
      return absolute;
    }
  }
}
