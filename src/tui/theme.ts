/**
 * Status colours. Only the eight basic ANSI colours, which every terminal theme maps to something readable
 * on its own background, dark or light; never black, white or a background colour. Colour is never the
 * only cue: each state also has its word or glyph, and the selection is marked with `›` as well as
 * reverse video, so everything reads the same with NO_COLOR.
 */
export type Tone = 'ok' | 'bad' | 'warn' | 'active' | 'lost' | 'plain';

export interface Theme {
  colour: boolean;
}

const COLOURS: Record<Tone, string | undefined> = {
  ok: 'green',
  bad: 'red',
  warn: 'yellow',
  active: 'cyan',
  lost: 'magenta',
  plain: undefined,
};

/** The Ink `color` for a tone, or undefined when colour is off. */
export function toneColour(theme: Theme, tone: Tone): string | undefined {
  return theme.colour ? COLOURS[tone] : undefined;
}

/** https://no-color.org: any non-empty NO_COLOR turns colour off. */
export function themeFromEnv(env: Record<string, string | undefined>): Theme {
  return { colour: !env.NO_COLOR };
}
