import type { DeliveryView } from '../../ipc/protocol.js';
import type { TableColumn } from './table.js';

/** `sched notifications` and the NOTIFICATIONS part of `sched show`: one row per message to one target. */
export function deliveryRows(items: readonly DeliveryView[]): [TableColumn[], string[][]] {
  const columns: TableColumn[] = [
    { header: 'CREATED' },
    { header: 'JOB' },
    { header: 'EVENT' },
    { header: 'TARGET' },
    { header: 'STATE' },
    { header: 'TRIES', align: 'right' },
    { header: 'ANSWER' },
  ];
  const rows = items.map((item) => [
    new Date(item.createdAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    item.jobName,
    item.kind,
    item.target,
    item.state,
    String(item.attempts),
    item.answer ?? '',
  ]);
  return [columns, rows];
}
