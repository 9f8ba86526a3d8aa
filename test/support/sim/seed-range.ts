/**
 * The first seed a simulation test explores: 1 in the suite; `npm run sim -- --from K` (SIM_FIRST_SEED)
 * explores seeds no run explored before. A failing seed is named by its number and replays alone.
 */
export const FIRST_SEED = Number(process.env['SIM_FIRST_SEED'] ?? 1);

/** `count` seeds from FIRST_SEED on, offset by `offset` (a case that runs its own stretch of seeds). */
export function seedsOf(count: number, offset = 0): number[] {
  return Array.from({ length: count }, (_, index) => FIRST_SEED + offset + index);
}
