/** `team=ops,tier=1`: compact enough for a table cell, and the same syntax `--label` takes. */
export function formatLabels(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}
