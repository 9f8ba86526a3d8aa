import { readFileSync } from 'node:fs';

/**
 * This process's soft limit on open files, which the spawner it starts inherits (Node raises it to the
 * hard limit as it starts); null where it is unlimited or /proc does not say.
 */
export function openFileLimit(): number | null {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return null;
  }
  const soft = /^Max open files\s+(\d+)/m.exec(limits)?.[1];
  return soft === undefined ? null : Number(soft);
}
