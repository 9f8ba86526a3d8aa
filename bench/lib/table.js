/** Plain-text tables with units in the headers, and number formats that keep columns readable. */

/** 12345.6 → "12,346"; 12.345 → "12.3"; 1.2345 → "1.23"; 0.01234 → "0.012". */
export function formatNumber(value) {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value !== 'number') return String(value);
  if (!Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value);
  const digits =
    magnitude >= 100 || Number.isInteger(value) ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * columns: [{ header, value: (row) => string|number, align?: 'left'|'right' }]; numbers go through
 * formatNumber and are right-aligned unless told otherwise.
 */
export function renderTable(columns, rows) {
  const cells = rows.map((row) =>
    columns.map((column) => {
      const value = column.value(row);
      return {
        text: formatNumber(value),
        right: column.align ? column.align === 'right' : typeof value === 'number',
      };
    }),
  );
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...cells.map((row) => row[i].text.length)),
  );
  const line = (texts, rights) =>
    `| ${texts.map((text, i) => (rights[i] ? text.padStart(widths[i]) : text.padEnd(widths[i]))).join(' | ')} |`;
  const rightAligned = columns.map((_, i) => cells.some((row) => row[i].right));
  return [
    line(
      columns.map((column) => column.header),
      rightAligned,
    ),
    `|${widths.map((width, i) => (rightAligned[i] ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`,
    ...cells.map((row) =>
      line(
        row.map((cell) => cell.text),
        row.map((cell) => cell.right),
      ),
    ),
  ].join('\n');
}
