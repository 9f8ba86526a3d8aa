/** How many of `voters` make a majority. */
export function majority(voters: number): number {
  return Math.floor(voters / 2) + 1;
}

/** The highest index that a majority of voters have, given each voter's highest matching index. */
export function majorityMatched(matched: readonly number[]): number {
  const sorted = [...matched].sort((a, b) => b - a);
  return sorted[majority(matched.length) - 1] ?? 0;
}
