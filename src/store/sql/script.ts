/** What a dialect's statement gives back: the value at once (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

/**
 * A transaction script: the domain rules of one store operation, written once for every dialect. It
 * yields each statement's result and gets it back resolved, so one driver runs it synchronously inside a
 * SQLite savepoint (nothing else can run between its statements) and another awaits each statement on a
 * PostgreSQL connection. A statement that fails is thrown at its `yield`, where the script may catch it.
 */
export type Script<T> = Generator<unknown, T, unknown>;

/** One statement of a script: `const row = yield* step(session.first(...))`. */
export function* step<T>(result: Awaitable<T>): Generator<Awaitable<T>, T, unknown> {
  return (yield result) as T;
}

/** Runs a script whose statements all answer at once. */
export function runSync<T>(script: Script<T>): T {
  let next = script.next();
  while (!next.done) {
    if (next.value instanceof Promise) throw new Error('a synchronous session answered with a promise');
    next = script.next(next.value);
  }
  return next.value;
}

/** Runs a script whose statements answer with promises, handing a failed statement's error back to it. */
export async function runAsync<T>(script: Script<T>): Promise<T> {
  let next = script.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await next.value;
    } catch (error) {
      next = script.throw(error);
      continue;
    }
    next = script.next(result);
  }
  return next.value;
}
