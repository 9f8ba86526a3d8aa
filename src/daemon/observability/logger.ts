import { pino, type Logger } from 'pino';

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/**
 * Structured JSON logs, one object per line. Job environments, HTTP headers and payloads may hold
 * secrets, so they are censored wherever they appear in a logged object.
 */
export function createDaemonLogger(write: (line: string) => void, level: LogLevel = 'info'): Logger {
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: {
        paths: [
          'env',
          '*.env',
          'target.env',
          '*.target.env',
          'headers',
          '*.headers',
          'target.headers',
          '*.target.headers',
          'payload',
          '*.payload',
          'responseHeaders',
          '*.responseHeaders',
        ],
        censor: '[redacted]',
      },
    },
    { write: (line: string) => write(line.endsWith('\n') ? line.slice(0, -1) : line) },
  );
}
