import { describe, expect, it } from 'vitest';
import { Screen } from '../../src/tui/terminal/screen.js';

function recorder() {
  const writes: string[] = [];
  return { writes, terminal: { write: (data: string) => writes.push(data) } };
}

describe('Screen', () => {
  it('given a painted frame, when the next differs in one line, then only that line is rewritten, in place', () => {
    const { writes, terminal } = recorder();
    const screen = new Screen(terminal);
    screen.paint('header\nrow 1\nrow 2');
    writes.length = 0;
    screen.paint('header\nrow 1 changed\nrow 2');
    expect(writes).toHaveLength(1);
    expect(writes[0]).toBe('\u001B[?2026h\u001B[2;1Hrow 1 changed\u001B[K\u001B[?2026l');
  });

  it('given the same frame twice, when painted, then nothing is written', () => {
    const { writes, terminal } = recorder();
    const screen = new Screen(terminal);
    screen.paint('a\nb');
    screen.paint('a\nb');
    expect(writes).toHaveLength(1);
  });

  it('given a shorter frame, when painted, then the lines it no longer has are cleared', () => {
    const { writes, terminal } = recorder();
    const screen = new Screen(terminal);
    screen.paint('a\nb\nc');
    writes.length = 0;
    screen.paint('a');
    expect(writes[0]).toContain('\u001B[2;1H\u001B[K');
    expect(writes[0]).toContain('\u001B[3;1H\u001B[K');
  });

  it('given the screen was entered, when left twice, then the main screen and the cursor come back once', () => {
    const { writes, terminal } = recorder();
    const screen = new Screen(terminal);
    screen.enter();
    screen.leave();
    screen.leave();
    expect(writes).toEqual(['\u001B[?1049h\u001B[?25l\u001B[H\u001B[2J', '\u001B[?1049l\u001B[?25h']);
  });

  it('given a resize, when repainted, then the screen is cleared and the last frame painted whole', () => {
    const { writes, terminal } = recorder();
    const screen = new Screen(terminal);
    screen.paint('a\nb');
    writes.length = 0;
    screen.repaint();
    expect(writes[0]).toBe('\u001B[H\u001B[2J');
    expect(writes[1]).toContain('\u001B[1;1Ha');
    expect(writes[1]).toContain('\u001B[2;1Hb');
  });
});
