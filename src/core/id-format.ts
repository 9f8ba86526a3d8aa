const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` has the shape of an id sched makes (a UUID), which is how lookups tell ids from names. */
export function looksLikeId(text: string): boolean {
  return UUID_PATTERN.test(text);
}
