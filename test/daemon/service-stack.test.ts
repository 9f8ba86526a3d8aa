import { describe, expect, it } from 'vitest';
import { service } from '../../src/daemon/service.js';
import { ServiceStack } from '../../src/daemon/service-stack.js';

describe('the daemon’s service stack', () => {
  const recorder = () => {
    const log: string[] = [];
    const part = (name: string, failStop = false) =>
      service(name, {
        start: () => log.push(`start ${name}`),
        stop: () => {
          log.push(`stop ${name}`);
          if (failStop) throw new Error(`${name} would not stop`);
        },
      });
    return { log, part };
  };

  it('stops its services in the reverse order of their start', async () => {
    const { log, part } = recorder();
    const stack = new ServiceStack(() => undefined);
    for (const name of ['lock', 'store', 'socket']) await stack.start(part(name));
    await stack.stop();
    expect(log).toEqual([
      'start lock',
      'start store',
      'start socket',
      'stop socket',
      'stop store',
      'stop lock',
    ]);
  });

  it('stops the rest when one fails to stop, and reports which', async () => {
    const { log, part } = recorder();
    const failed: string[] = [];
    const stack = new ServiceStack((failing, error) => failed.push(`${failing.name}: ${error.message}`));
    await stack.start(part('store'));
    await stack.start(part('scheduler', true));
    await stack.stop();
    expect(log.slice(-2)).toEqual(['stop scheduler', 'stop store']);
    expect(failed).toEqual(['scheduler: scheduler would not stop']);
  });

  it('leaves out a service that failed to start, and stops only what did start', async () => {
    const { log, part } = recorder();
    const stack = new ServiceStack(() => undefined);
    await stack.start(part('store'));
    const broken = service('socket', {
      start: () => {
        throw new Error('address in use');
      },
    });
    await expect(stack.start(broken)).rejects.toThrow('address in use');
    await stack.stop();
    expect(log).toEqual(['start store', 'stop store']);
  });

  it('stops a service that finished starting after the stop began, and starts none after', async () => {
    const { log, part } = recorder();
    const stack = new ServiceStack(() => undefined);
    let finishStart: () => void = () => undefined;
    const slow = service('scheduler', {
      start: () =>
        new Promise<void>((resolve) => (finishStart = resolve)).then(() => log.push('start scheduler')),
      stop: () => log.push('stop scheduler'),
    });
    const starting = stack.start(slow);
    await stack.stop();
    finishStart();
    await expect(starting).rejects.toThrow('stopping');
    await expect(stack.start(part('retention'))).rejects.toThrow('stopping');
    expect(log).toEqual(['start scheduler', 'stop scheduler']);
  });
});
