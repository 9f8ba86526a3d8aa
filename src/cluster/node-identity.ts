import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SchedError } from '../core/errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * This host's node id in the cluster: a UUID kept in `<home>/node-id`, made on first use. It outlives
 * restarts, so a restarted daemon takes back its own shards instead of joining as a stranger.
 */
export function loadNodeId(home: string): string {
  const file = path.join(home, 'node-id');
  const existing = readNodeId(file);
  if (existing !== undefined) return existing;
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  // Written aside and linked into place: of two daemons starting at once, one wins the link and the
  // other reads the winner's id, and neither ever reads a half-written file.
  const draft = `${file}.${process.pid}.${randomUUID()}.tmp`;
  fs.writeFileSync(draft, `${randomUUID()}\n`, { mode: 0o600 });
  try {
    fs.linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(draft, { force: true });
  }
  const created = readNodeId(file);
  if (created === undefined) throw new Error(`${file} vanished right after it was written`);
  return created;
}

/** The id in `file`, or undefined when there is no file yet. */
function readNodeId(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const id = text.trim();
  if (!UUID.test(id)) {
    throw new SchedError('VALIDATION_FAILED', `The node id file ${file} does not hold a UUID.`, {
      hint: 'Delete it to give this host a new node id; the cluster will then see it as a new node.',
      details: { path: file },
    });
  }
  return id.toLowerCase();
}
