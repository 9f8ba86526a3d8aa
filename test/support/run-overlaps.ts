/** Pairs of runs whose [start, finish] intervals overlap (runs not yet finished are left out). */
export function overlaps(runs: readonly { startedAt: number | null; finishedAt: number | null }[]): number {
  const ran = runs.filter((run) => run.startedAt !== null && run.finishedAt !== null);
  let count = 0;
  for (let i = 0; i < ran.length; i++)
    for (let j = i + 1; j < ran.length; j++)
      if (ran[i]!.startedAt! < ran[j]!.finishedAt! && ran[j]!.startedAt! < ran[i]!.finishedAt!) count++;
  return count;
}
