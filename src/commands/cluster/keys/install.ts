import { keyChangeCommand, keyChangeExample } from '../../../cli/cluster-key-change.js';

export default keyChangeCommand(
  'install',
  'Add a key to this host’s cluster keyring: it opens peer messages, the primary still seals them.',
  [
    keyChangeExample('Step 1 of a rotation, on every member: install the new key.', 'new.key'),
    keyChangeExample('The key from standard input.', '- < new.key'),
  ],
);
