import { fileURLToPath } from 'node:url';
import { Config } from '@oclif/core';
import type { Method } from '../../src/ipc/protocol.js';

export interface RecordedCall {
  method: Method;
  params: unknown;
}

/** A stand-in for DaemonClient that records calls and answers from a table of canned results. */
export class FakeDaemonClient {
  readonly calls: RecordedCall[] = [];

  constructor(private readonly results: Partial<Record<Method, unknown>>) {}

  async call(method: Method, params: unknown): Promise<unknown> {
    this.calls.push({ method, params });
    return this.results[method];
  }

  close(): void {}
}

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
let config: Config | undefined;

interface CommandClass {
  new (argv: string[], config: Config): { run(): Promise<unknown> };
}

/** What a command needs of its daemon connection: a FakeDaemonClient, or a real DaemonClient on a live daemon. */
export type CommandClient = Pick<FakeDaemonClient, 'close'> & {
  call(method: Method, params: never): Promise<unknown>;
};

/** Runs a command class in this process with the given daemon client, returning what `run()` returns. */
export async function runCommand(
  command: CommandClass,
  argv: string[],
  client: CommandClient,
): Promise<unknown> {
  config ??= await Config.load(projectRoot);
  const instance = new command(argv, config);
  Object.assign(instance, { client: async () => client });
  return instance.run();
}
