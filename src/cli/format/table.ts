/** A plain aligned table: columns as wide as their widest cell, two spaces apart, no trailing blanks. */
export type Alignment = 'left' | 'right';

export interface TableColumn {
  header: string;
  align?: Alignment;
}

// Coloured cells carry escape codes that take no room on screen.
const ANSI_ESCAPE = new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g');

export function visibleWidth(text: string): number {
  return [...text.replace(ANSI_ESCAPE, '')].length;
}

function pad(text: string, width: number, align: Alignment): string {
  const fill = ' '.repeat(Math.max(0, width - visibleWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}

export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, index) =>
    Math.max(visibleWidth(column.header), ...rows.map((row) => visibleWidth(row[index] ?? ''))),
  );
  const renderRow = (cells: readonly string[]): string =>
    columns
      .map((column, index) => pad(cells[index] ?? '', widths[index] ?? 0, column.align ?? 'left'))
      .join('  ')
      .trimEnd();
  return [renderRow(columns.map((column) => column.header)), ...rows.map(renderRow)].join('\n');
}
