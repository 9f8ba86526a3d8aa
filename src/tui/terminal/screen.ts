/**
 * The dashboard's screen: the terminal's alternate screen, painted line by line at absolute positions.
 *
 * Ink's own writer erases its previous frame and writes the new one (its incremental mode, in 6.8, drifts
 * down a row per frame when the frame ends in a newline). A dashboard owns the whole screen, so it can do
 * better: each frame is compared with the last one and only the lines that changed are rewritten, in
 * place, inside a synchronized update. Nothing is erased first, so nothing flickers, and rows that did not
 * change are not touched at all.
 */
const ESC = '\u001B[';
const ENTER = `${ESC}?1049h${ESC}?25l${ESC}H${ESC}2J`;
const LEAVE = `${ESC}?1049l${ESC}?25h`;
/** Terminals that know mode 2026 show everything between these at once; others ignore them. */
const BEGIN_UPDATE = `${ESC}?2026h`;
const END_UPDATE = `${ESC}?2026l`;
const CLEAR = `${ESC}H${ESC}2J`;

export interface Terminal {
  write(data: string): unknown;
}

export class Screen {
  private lines: string[] = [];
  private last = '';
  private entered = false;

  constructor(private readonly terminal: Terminal) {}

  /** Switches to the alternate screen and hides the cursor. */
  enter(): void {
    if (this.entered) return;
    this.entered = true;
    this.terminal.write(ENTER);
  }

  /** Back to the main screen as it was before, cursor shown. Safe to call twice (and from an exit hook). */
  leave = (): void => {
    if (!this.entered) return;
    this.entered = false;
    this.terminal.write(LEAVE);
  };

  /** Paints a frame (lines separated by \n), rewriting only the lines that differ from the last frame. */
  paint(frame: string): void {
    this.last = frame;
    const next = frame.split('\n');
    let out = '';
    const count = Math.max(next.length, this.lines.length);
    for (let row = 0; row < count; row += 1) {
      const line = next[row] ?? '';
      if (line === this.lines[row]) continue;
      out += `${ESC}${row + 1};1H${line}${ESC}K`;
    }
    this.lines = next;
    if (out !== '') this.terminal.write(BEGIN_UPDATE + out + END_UPDATE);
  }

  /** After a resize the terminal may have reflowed the screen: clear it and paint the last frame whole. */
  repaint(): void {
    this.lines = [];
    this.terminal.write(CLEAR);
    if (this.last !== '') this.paint(this.last);
  }
}
