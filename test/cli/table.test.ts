import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { renderTable, visibleWidth } from '../../src/cli/format/table.js';

describe('renderTable', () => {
  it('given rows of different widths, when rendered, then every column is as wide as its widest cell', () => {
    const table = renderTable(
      [{ header: 'NAME' }, { header: 'STATE' }, { header: 'N', align: 'right' }],
      [
        ['nightly-backup', 'active', '7'],
        ['tick', 'paused', '123'],
      ],
    );
    expect(table.split('\n')).toEqual([
      'NAME            STATE     N',
      'nightly-backup  active    7',
      'tick            paused  123',
    ]);
  });

  it('given an empty last cell, when rendered, then lines carry no trailing spaces', () => {
    const table = renderTable([{ header: 'NAME' }, { header: 'LABELS' }], [['tick', '']]);
    expect(table.split('\n')[1]).toBe('tick');
  });

  it('given no rows, when rendered, then only the header line is printed', () => {
    expect(renderTable([{ header: 'A' }, { header: 'B' }], [])).toBe('A  B');
  });

  it('given coloured cells, when rendered, then escape codes do not count towards the width', () => {
    const painter = new Chalk({ level: 1 });
    const table = renderTable(
      [{ header: 'STATE' }, { header: 'X' }],
      [
        [painter.red('failed'), 'x'],
        ['ok', 'y'],
      ],
    );
    const lines = table
      .split('\n')
      .map((line) => line.replace(new RegExp(String.raw`\u001b\[[0-9;]*m`, 'g'), ''));
    expect(lines).toEqual(['STATE   X', 'failed  x', 'ok      y']);
  });

  it('given text with escape codes, when measured, then only visible characters count', () => {
    expect(visibleWidth('\u001b[31mred\u001b[39m')).toBe(3);
  });
});
