import type { RowEncoding } from '../sql/records.js';

/**
 * PostgreSQL text and jsonb refuse U+0000, which SQLite stores. Free text from outside (an error
 * message) and the searchable copy of the labels get U+FFFD instead, so such a write still succeeds.
 * The definition and audit images are JSON text, where NUL is already escaped, and output tails are bytes.
 */
export function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}

/** The labels as stored for `@>` filters; queries pass theirs through here too, so they still match. */
export function searchableLabels(labels: Record<string, string>): Record<string, string> {
  const entries = Object.entries(labels);
  if (!entries.some(([key, value]) => key.includes('\u0000') || value.includes('\u0000'))) return labels;
  return Object.fromEntries(entries.map(([key, value]) => [withoutNul(key), withoutNul(value)]));
}

export const POSTGRES_ENCODING: RowEncoding = { labels: searchableLabels, text: withoutNul };
