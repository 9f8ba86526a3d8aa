import { keyChangeCommand, keyChangeExample } from '../../../cli/cluster-key-change.js';

export default keyChangeCommand(
  'remove',
  'Drop a key from this host’s cluster keyring: messages sealed with it no longer open here.',
  [keyChangeExample('Step 3 of a rotation, once every member uses the new key.', 'old.key')],
);
