import os from 'node:os';
import { SchedCommand } from '../../cli/base-command.js';
import { renderTable } from '../../cli/format/table.js';
import { configFlags, configFlagValues } from '../../config/flags.js';
import { shownValue, type ConfigKey } from '../../config/keys.js';
import { configFileCandidates } from '../../config/file.js';
import { loadConfig } from '../../config/load.js';
import type { ConfigSource } from '../../config/resolve.js';

export interface ConfigShowResult {
  /** The config file that was read, or null when none exists. */
  file: string | null;
  /** Where sched looked for one, in order. */
  searched: string[];
  settings: Record<ConfigKey, { value: unknown; source: ConfigSource }>;
}

export default class ConfigShow extends SchedCommand {
  static override localOnly = "shows this host's configuration";
  static override summary = 'Show the effective configuration and where each value came from.';
  static override description =
    'Settings come from flags, then the environment (SCHED_STORE, SCHED_SOCKET, SCHED_MAX_CONCURRENT, ' +
    'SCHED_TZ, SCHED_LOG_LEVEL, SCHED_METRICS_ADDRESS), then config.toml ($SCHED_CONFIG; else ' +
    '$SCHED_HOME/config.toml when SCHED_HOME is set; else $XDG_CONFIG_HOME/sched/config.toml or ' +
    '/etc/sched/config.toml), then defaults. ' +
    'The flags are those of `sched daemon run`, so you can check what a daemon would run with.';

  static override examples = [
    { description: 'What would a daemon started here use?', command: '<%= config.bin %> <%= command.id %>' },
    {
      description: 'Check a config file before installing it.',
      command: 'SCHED_CONFIG=./config.toml <%= config.bin %> <%= command.id %> --json',
    },
    {
      description: 'See what a flag would override.',
      command: '<%= config.bin %> <%= command.id %> --max-concurrent 4',
    },
  ];

  static override flags = configFlags;

  async run(): Promise<ConfigShowResult> {
    const { flags } = await this.parse(ConfigShow);
    const config = loadConfig(process.env, configFlagValues(flags));
    const settings = {} as ConfigShowResult['settings'];
    for (const key of Object.keys(config.values) as ConfigKey[])
      settings[key] = { value: shownValue(key, config.values[key]), source: config.sources[key] };
    const result: ConfigShowResult = {
      file: config.file,
      searched: configFileCandidates(process.env, os.homedir()).paths,
      settings,
    };

    if (!this.jsonEnabled()) {
      this.log(
        config.file === null
          ? `Config file: none (looked for ${result.searched.join(', ')})`
          : `Config file: ${config.file}`,
      );
      this.log('');
      const rows = Object.entries(settings).map(([key, { value, source }]) => [
        key,
        value === null ? describeNull(key) : String(value),
        describeSource(source),
      ]);
      this.log(renderTable([{ header: 'SETTING' }, { header: 'VALUE' }, { header: 'FROM' }], rows));
    }
    return result;
  }
}

function describeNull(key: string): string {
  if (key === 'max_concurrent') return 'no limit';
  return key === 'max_children' ? 'as the open-file limit allows' : 'off';
}

function describeSource(source: ConfigSource): string {
  switch (source.kind) {
    case 'flag':
      return `flag ${source.name}`;
    case 'env':
      return `env ${source.name}`;
    case 'file':
      return source.path;
    case 'default':
      return 'default';
  }
}
