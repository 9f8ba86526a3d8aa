import { createDaemonLogger } from './logger.js';

/**
 * Leaves one `daemon:crashed` line in the log when an error nobody handled is about to end the process: an
 * uncaught exception, or an unhandled rejection (which Node raises as one). It only watches: Node still prints
 * the stack and exits as it would have, so no bug is hidden, but the log says why the daemon is gone.
 */
export function logFatalErrors(write: (line: string) => void): void {
  const log = createDaemonLogger(write, 'fatal');
  const onFatal = (error: Error, origin: string) =>
    log.fatal(
      { event: 'daemon:crashed', origin, err: error },
      'the daemon is ending on an error it did not handle',
    );
  process.on('uncaughtExceptionMonitor', onFatal);
}
