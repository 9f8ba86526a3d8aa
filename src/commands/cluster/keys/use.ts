import { keyChangeCommand, keyChangeExample } from '../../../cli/cluster-key-change.js';

export default keyChangeCommand(
  'use',
  'Make an installed key this host’s primary: what this host sends to its peers is sealed with it.',
  [keyChangeExample('Step 2 of a rotation, once the new key is installed on every member.', 'new.key')],
);
