/** A list setting given as text (an environment variable): comma-separated, blanks ignored. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
