import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/sched-harness.js';

const eslint = new ESLint({ cwd: repoRoot });

/** The layer-rule messages ESLint gives `code` as if it were the file at `filePath`. */
async function layerBreaches(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages
    .filter((message) => message.ruleId === 'sched/layer-imports' || message.fatal)
    .map((message) => message.message);
}

/** Each way a file can reach a module: the rule must see them all. */
const spellings = (source: string) => [
  `import { x } from '${source}';\nexport { x };`,
  `import type { X } from '${source}';\nexport type { X };`,
  `export * from '${source}';`,
  `export const load = () => import('${source}');`,
];

// [file, import]: the import resolves somewhere the file's layer may not reach.
const FORBIDDEN: Array<[string, string]> = [
  ['src/core/job.ts', 'node:fs'],
  ['src/core/job.ts', 'fs'],
  ['src/core/cluster/shard.ts', 'fs/promises'],
  ['src/core/cluster/shard.ts', 'child_process'],
  ['src/core/schedule/deep/new.ts', 'net'],
  ['src/core/job.ts', 'better-sqlite3'],
  ['src/core/cluster/shard.ts', 'drizzle-orm/sqlite-core'],
  ['src/core/cluster/shard.ts', 'pg'],
  ['src/core/job.ts', 'node-ipc'],
  ['src/core/job.ts', 'undici'],
  ['src/core/ledger/entry.ts', 'pino'],
  ['src/core/job.ts', 'some-new-package'],
  ['src/core/job.ts', '../store/store.js'],
  ['src/core/cluster/shard.ts', '../../store/sqlite/sqlite-store.js'],
  ['src/core/schedule/deep/new.ts', '../../../daemon/daemon.js'],
  ['src/core/cluster/shard.ts', '../../cluster/member-round.js'],
  ['src/core/cluster/shard.ts', '../../config/load.js'],
  ['src/core/cluster/shard.ts', '../../ipc/protocol.js'],
  ['src/commands/ls.ts', '../store/store.js'],
  ['src/commands/daemon/status.ts', '../../store/sqlite/schema.js'],
  ['src/commands/a/b/new.ts', '../../../store/postgres/postgres-store.js'],
  ['src/commands/doctor.ts', '../daemon/job-service.js'],
  ['src/commands/cluster/status.ts', '../../cluster/postgres-cluster.js'],
  ['src/commands/cluster/status.ts', '../../cluster/cluster-member.js'],
  ['src/commands/doctor.ts', 'better-sqlite3'],
  ['src/commands/doctor.ts', 'pg'],
  ['src/commands/export.ts', 'drizzle-orm'],
  ['src/commands/export.ts', 'drizzle-orm/pg-core'],
  ['src/tui/Dashboard.tsx', '../store/store.js'],
  ['src/tui/components/JobTable.tsx', '../../daemon/events.js'],
  ['src/tui/state/deep/new.ts', '../../../store/sqlite/connection.js'],
  ['src/tui/backend/daemon-backend.ts', 'better-sqlite3'],
  ['src/cli/format/job-list.ts', '../../store/store.js'],
  ['src/cli/base-command.ts', 'better-sqlite3'],
  ['src/client/daemon-client.ts', '../daemon/request-router.js'],
  ['src/commands/daemon/run.ts', '../../daemon/scheduler/scheduler.js'],
  ['src/commands/daemon/run.ts', '../../store/store.js'],
  ['src/commands/daemon/run.ts', 'better-sqlite3'],
];

// [file, import]: what the layer is meant to use.
const ALLOWED: Array<[string, string]> = [
  ['src/core/job.ts', 'zod'],
  ['src/core/schedule/cron.ts', 'luxon'],
  ['src/core/schedule/cron.ts', 'cron-parser'],
  ['src/core/cluster/shard.ts', '../job.js'],
  ['src/core/cluster/shard.ts', './hash.js'],
  ['src/core/policy/misfire.ts', '../cluster/hash.js'],
  ['src/core/schedule/deep/new.ts', '../../errors.js'],
  ['src/commands/ls.ts', '../client/daemon-client.js'],
  ['src/commands/ls.ts', 'node:fs'],
  ['src/commands/daemon/status.ts', '../../cli/base-command.js'],
  ['src/commands/daemon/status.ts', '../../core/duration.js'],
  ['src/commands/daemon/status.ts', '../../ipc/protocol.js'],
  ['src/commands/a/b/new.ts', '../../../config/load.js'],
  ['src/tui/components/JobTable.tsx', '../../client/daemon-client.js'],
  ['src/tui/components/JobTable.tsx', 'ink'],
  ['src/cli/format/job-list.ts', '../../core/job.js'],
  ['src/client/daemon-client.ts', '../ipc/protocol.js'],
  ['src/commands/daemon/run.ts', '../../daemon/daemon.js'],
  ['src/commands/daemon/run.ts', '../../daemon/observability/fatal-log.js'],
];

describe('the layer rules in eslint.config.js', () => {
  it.each(FORBIDDEN)(
    'given %s, when it imports %s, then every way of importing it is reported',
    async (file, source) => {
      for (const code of spellings(source)) {
        const breaches = await layerBreaches(file, code);
        expect(breaches, code).toHaveLength(1);
        expect(breaches[0], code).toContain(`'${source}'`);
      }
    },
  );

  it.each(ALLOWED)('given %s, when it imports %s, then nothing is reported', async (file, source) => {
    for (const code of spellings(source)) expect(await layerBreaches(file, code), code).toEqual([]);
  });
});
