import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';

/** Wraps every async method of a store so its latency lands in `observe`, whatever the back end. */
export function instrumentStore(
  store: Store,
  clock: Clock,
  observe: (operation: string, seconds: number) => void,
): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      return (...args: unknown[]) => {
        const started = clock.monotonic();
        const result = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (result instanceof Promise) {
          return result.finally(() => observe(property, (clock.monotonic() - started) / 1000));
        }
        return result;
      };
    },
  });
}
