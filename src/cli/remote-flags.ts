import { Flags } from '@oclif/core';

const GROUP = 'REMOTE';

/** On every command: point it at a daemon's HTTPS API instead of this host's socket. */
export const remoteFlags = {
  remote: Flags.string({
    summary:
      'Talk to the daemon whose HTTPS API is at this URL instead of this host’s (or set SCHED_REMOTE); the token comes from SCHED_TOKEN or --token-file.',
    helpValue: 'URL',
    helpGroup: GROUP,
  }),
  'token-file': Flags.string({
    summary:
      'A file holding the API token for --remote (or set SCHED_TOKEN_FILE; SCHED_TOKEN holds the token itself).',
    helpValue: 'FILE',
    helpGroup: GROUP,
  }),
  'ca-file': Flags.string({
    summary:
      'The PEM certificate of the CA that signed the remote daemon’s certificate, when it is not a public one (or set SCHED_CA_FILE).',
    helpValue: 'FILE',
    helpGroup: GROUP,
  }),
};
