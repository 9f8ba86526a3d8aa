import { Text } from 'ink';
import { toneColour, type Theme, type Tone } from '../theme.js';

export interface FooterProps {
  text: string;
  tone: Tone;
  /** Key hints are quiet; prompts and messages are not. */
  quiet: boolean;
  theme: Theme;
}

/** One line: key hints, the filter being typed, a confirmation question, or the result of an action. */
export function Footer({ text, tone, quiet, theme }: FooterProps) {
  return (
    <Text wrap="truncate-end" dimColor={quiet} color={toneColour(theme, tone)}>
      {text}
    </Text>
  );
}
