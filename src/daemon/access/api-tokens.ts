import { createHash, randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX, tokenRefusal, type ApiToken } from '../../core/access/api-token.js';
import type { Caller } from '../../core/access/roles.js';
import { SchedError } from '../../core/errors.js';
import type { ParsedParams, Results } from '../../ipc/protocol.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { Actor } from './request-caller.js';

export interface ApiTokensDeps {
  store: Store;
  clock: Clock;
  newId: () => string;
}

/** `sched token ls` shows when a token was last used to the minute; one write a minute per token is enough. */
const LAST_USED_PRECISION_MS = 60_000;

/**
 * API tokens: made from 256 random bits, shown once, kept only as their SHA-256 hash. A token's caller is
 * its owner with the token's role (see Caller.token), so the access rules, limits and audit of socket
 * requests apply to it unchanged.
 */
export class ApiTokens {
  private readonly touched = new Map<string, number>();

  constructor(private readonly deps: ApiTokensDeps) {}

  async create(params: ParsedParams<'token.create'>, actor: Actor): Promise<Results['token.create']> {
    const { store, clock, newId } = this.deps;
    const now = clock.now();
    const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const stored = await store.createApiToken({
      id: newId(),
      name: params.name,
      hash: hashOf(token),
      role: params.role,
      owner: params.owner ?? `token:${params.name}`,
      createdAt: now,
      expiresAt: params.ttlMs === undefined ? null : now + params.ttlMs,
      createdBy: actor.audited,
    });
    if (stored === null) {
      throw new SchedError('NAME_TAKEN', `A token named ${params.name} exists already.`, {
        hint: `Revoke it first (sched token revoke ${params.name}), or choose another name.`,
        details: { name: params.name },
      });
    }
    await this.audit('token.create', actor, null, stored);
    return { ...stored, token };
  }

  async list(): Promise<Results['token.list']> {
    return { items: await this.deps.store.listApiTokens() };
  }

  async revoke(params: ParsedParams<'token.revoke'>, actor: Actor): Promise<Results['token.revoke']> {
    const revoked = await this.deps.store.revokeApiToken(params.name, this.deps.clock.now());
    if (revoked === null) {
      throw new SchedError('VALIDATION_FAILED', `No token named ${params.name}.`, {
        hint: '`sched token ls` lists the tokens that are not revoked.',
        details: { name: params.name },
      });
    }
    await this.audit('token.revoke', actor, { ...revoked, revokedAt: null }, revoked);
    return revoked;
  }

  /**
   * The caller a token stands for, or why it is refused (UNAUTHENTICATED); never says which tokens exist
   * beyond whether this one is unknown, revoked or expired.
   */
  async callerOf(token: string): Promise<Caller> {
    const now = this.deps.clock.now();
    const found = token.startsWith(API_TOKEN_PREFIX)
      ? await this.deps.store.findApiTokenByHash(hashOf(token))
      : null;
    const refusal = found === null ? 'unknown' : tokenRefusal(found, now);
    if (found === null || refusal !== null) {
      throw new SchedError('UNAUTHENTICATED', `The API token was refused: it is ${refusal}.`, {
        hint: 'Ask an admin for a token (sched token create) and send it as Authorization: Bearer <token>.',
        details: { reason: refusal },
      });
    }
    this.noteUse(found, now);
    return {
      user: found.owner,
      uid: -1,
      gid: -1,
      pid: -1,
      groups: [],
      token: { name: found.name, role: found.role },
    };
  }

  private noteUse(token: ApiToken, now: number): void {
    const last = this.touched.get(token.id) ?? token.lastUsedAt ?? -Infinity;
    if (now - last < LAST_USED_PRECISION_MS) return;
    this.touched.set(token.id, now);
    // Best effort: a request is not refused because its token's last use could not be written.
    void this.deps.store.touchApiToken(token.id, now).catch(() => undefined);
  }

  private audit(action: string, actor: Actor, before: ApiToken | null, after: ApiToken): Promise<void> {
    return this.deps.store.appendAudit({
      id: this.deps.newId(),
      at: this.deps.clock.now(),
      actor: actor.audited,
      action,
      jobId: null,
      before,
      after,
    });
  }
}

function hashOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
