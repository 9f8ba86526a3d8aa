import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SchedError } from '../../core/errors.js';
import type { Clock } from '../clock.js';

const KEY_BYTES = 32;
/** How often the file is looked at for a change made by another daemon sharing it (a rotation). */
const RECHECK_MS = 1_000;

interface KeyFile {
  sched: 'secret-keys';
  version: 1;
  /** The key new values are sealed under. */
  current: string;
  /** Every key that may still open stored values, by id; during a rotation the old one stays here. */
  keys: Record<string, string>;
}

/** A key's id: a hash of the key, so an id can never name two different keys. */
function idOf(key: Buffer): string {
  return createHash('sha256').update('sched secret key\0').update(key).digest('hex').slice(0, 16);
}

/**
 * The secret keys in one file (0600): the current key, which seals, and older ones kept while a rotation
 * re-seals what they sealed. Several daemons may share the file (a federation's `key_file`): a change one
 * of them writes is picked up by the others when they next seal (looked for at most once a second) or
 * meet a value under a key they do not know yet.
 */
export class Keyring {
  private keys = new Map<string, Buffer>();
  private currentId = '';
  private modifiedMs = 0;
  private checkedAt = 0;

  private constructor(
    readonly file: string,
    private readonly clock: Pick<Clock, 'monotonic'>,
  ) {}

  /** The keyring in `file`; null when there is no such file. */
  static load(file: string, clock: Pick<Clock, 'monotonic'>): Keyring | null {
    if (!fs.existsSync(file)) return null;
    const keyring = new Keyring(file, clock);
    keyring.read();
    return keyring;
  }

  /** A new file holding one fresh key; refused if the file exists. */
  static create(file: string, clock: Pick<Clock, 'monotonic'>): Keyring {
    const keyring = new Keyring(file, clock);
    const key = randomBytes(KEY_BYTES);
    keyring.keys.set(idOf(key), key);
    keyring.currentId = idOf(key);
    keyring.write({ exclusive: true });
    return keyring;
  }

  get ids(): string[] {
    return [...this.keys.keys()];
  }

  current(): { id: string; key: Buffer } {
    this.recheck();
    return { id: this.currentId, key: this.keys.get(this.currentId)! };
  }

  /** The key with this id, reading the file again once if it is not known (another daemon may have added it). */
  find(id: string): Buffer | undefined {
    if (!this.keys.has(id)) this.recheck(true);
    return this.keys.get(id);
  }

  /** Adds a fresh key and makes it the current one; the old keys stay until `retireAllBut`. */
  addCurrent(): string {
    const key = randomBytes(KEY_BYTES);
    this.keys.set(idOf(key), key);
    this.currentId = idOf(key);
    this.write({ exclusive: false });
    return this.currentId;
  }

  /** Drops every key but `id` from the file (once nothing stored is sealed under them any more). */
  retireAllBut(id: string): void {
    for (const other of [...this.keys.keys()]) if (other !== id) this.keys.delete(other);
    this.write({ exclusive: false });
  }

  private recheck(force = false): void {
    const now = this.clock.monotonic();
    if (!force && now - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = now;
    try {
      if (fs.statSync(this.file).mtimeMs !== this.modifiedMs) this.read();
    } catch {
      // A file gone or half written meanwhile: the keys in memory still serve until it is back.
    }
  }

  private read(): void {
    const stat = fs.statSync(this.file);
    if ((stat.mode & 0o077) !== 0)
      throw this.invalid(
        `is readable or writable by others (mode ${(stat.mode & 0o777).toString(8)})`,
        `chmod 600 ${this.file}`,
      );
    let parsed: KeyFile;
    try {
      parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as KeyFile;
    } catch (error) {
      throw this.invalid(`is not a key file (${(error as Error).message})`);
    }
    const keys = new Map<string, Buffer>();
    for (const [id, text] of Object.entries(parsed?.keys ?? {})) {
      const key = Buffer.from(String(text), 'base64');
      if (key.length !== KEY_BYTES || idOf(key) !== id) throw this.invalid(`holds a damaged key (${id})`);
      keys.set(id, key);
    }
    if (parsed?.sched !== 'secret-keys' || !keys.has(parsed.current))
      throw this.invalid('does not name its current key');
    this.keys = keys;
    this.currentId = parsed.current;
    this.modifiedMs = stat.mtimeMs;
  }

  /** Written whole to a temporary file and renamed over the old one, so a reader never sees half of it. */
  private write({ exclusive }: { exclusive: boolean }): void {
    const content: KeyFile = {
      sched: 'secret-keys',
      version: 1,
      current: this.currentId,
      keys: Object.fromEntries([...this.keys].map(([id, key]) => [id, key.toString('base64')])),
    };
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.${process.pid}.tmp`;
    const fd = fs.openSync(temporary, 'w', 0o600);
    try {
      fs.fchmodSync(fd, 0o600);
      fs.writeSync(fd, `${JSON.stringify(content, null, 2)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (exclusive && fs.existsSync(this.file)) {
      fs.rmSync(temporary);
      throw this.invalid('appeared while it was being created');
    }
    fs.renameSync(temporary, this.file);
    this.modifiedMs = fs.statSync(this.file).mtimeMs;
  }

  private invalid(problem: string, fix?: string): SchedError {
    return new SchedError('VALIDATION_FAILED', `The secret key file ${this.file} ${problem}.`, {
      hint:
        fix ?? 'Restore the key file from where you keep a copy of it, or point the key_file setting at it.',
      details: { keyFile: this.file },
    });
  }
}
