import { describe, expect, it } from 'vitest';
import { runAsync, runSync, step, type Awaitable, type Script } from '../../src/store/sql/script.js';

/** A script of two statements whose second may fail; it catches the failure and says so. */
function* twoStatements(second: () => Awaitable<number>): Script<string> {
  const first = yield* step<number>(1);
  try {
    return `${first} then ${yield* step(second())}`;
  } catch (error) {
    return `${first} then caught ${(error as Error).message}`;
  }
}

describe('transaction script drivers', () => {
  it('Given statements that answer at once, when the script runs synchronously, then each result comes back to it', () => {
    expect(runSync(twoStatements(() => 2))).toBe('1 then 2');
  });

  it('Given a statement that throws at once, when the script runs synchronously, then the script catches it', () => {
    const failing = () => {
      throw new Error('unique');
    };

    expect(runSync(twoStatements(failing))).toBe('1 then caught unique');
  });

  it('Given a statement that answers with a promise, when the script runs synchronously, then it refuses', () => {
    expect(() => runSync(twoStatements(() => Promise.resolve(2)))).toThrow(/promise/);
  });

  it('Given statements that answer with promises, when the script runs asynchronously, then each result comes back to it', async () => {
    expect(await runAsync(twoStatements(() => Promise.resolve(2)))).toBe('1 then 2');
  });

  it('Given a statement whose promise rejects, when the script runs asynchronously, then the script catches it at its step', async () => {
    expect(await runAsync(twoStatements(() => Promise.reject(new Error('unique'))))).toBe(
      '1 then caught unique',
    );
  });

  it('Given a script that does not catch, when a statement fails, then the driver rejects with that error', async () => {
    function* uncaught(): Script<number> {
      return yield* step(Promise.reject<number>(new Error('lost')));
    }

    await expect(runAsync(uncaught())).rejects.toThrow('lost');
  });
});
