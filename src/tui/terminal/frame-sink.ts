import { EventEmitter } from 'node:events';

/**
 * What Ink renders into: a stand-in stdout that hands each complete frame to `paint`. Ink runs in debug
 * mode against it, which writes the whole frame on every render and no cursor movements, so painting is
 * entirely the Screen's business. Size and resize come from the real terminal.
 */
export class FrameSink extends EventEmitter {
  readonly isTTY = true;

  constructor(
    private readonly terminal: { columns?: number; rows?: number },
    private readonly paint: (frame: string) => void,
  ) {
    super();
  }

  get columns(): number {
    return this.terminal.columns || 80;
  }

  get rows(): number {
    return this.terminal.rows || 24;
  }

  write = (frame: string): boolean => {
    this.paint(frame);
    return true;
  };
}
