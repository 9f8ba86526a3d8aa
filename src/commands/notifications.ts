import { Flags } from '@oclif/core';
import { SchedCommand } from '../cli/base-command.js';
import { deliveryRows } from '../cli/format/delivery-list.js';
import { renderTable } from '../cli/format/table.js';
import type { DeliveryView } from '../ipc/protocol.js';

export default class Notifications extends SchedCommand {
  static override summary = 'List notifications sent, waiting and given up on, newest first.';
  static override description =
    'Each row is one message to one target: pending (waiting or retrying), delivered, failed (given up after its retries) or suppressed (held back for a summary when a job flaps). Targets show only their scheme and host.';

  static override examples = [
    { description: 'What was given up on?', command: '<%= config.bin %> <%= command.id %> --failed' },
    { description: 'One job, as JSON.', command: '<%= config.bin %> <%= command.id %> --job nightly --json' },
  ];

  static override flags = {
    failed: Flags.boolean({ summary: 'Only deliveries that were given up on.' }),
    job: Flags.string({ summary: 'Only this job’s.', helpValue: 'JOB' }),
    limit: Flags.integer({ summary: 'At most this many (default 50).', min: 1, max: 1000, default: 50 }),
  };

  async run(): Promise<{ items: DeliveryView[] }> {
    const { flags } = await this.parse(Notifications);
    const client = await this.client();
    const result = await client.call('notify.list', {
      jobRef: flags.job,
      failed: flags.failed,
      limit: flags.limit,
    });
    if (!this.jsonEnabled()) {
      if (result.items.length === 0)
        this.log(flags.failed ? 'No failed notifications.' : 'No notifications yet.');
      else this.log(renderTable(...deliveryRows(result.items)));
    }
    return result;
  }
}
