import { formatDuration } from '../../core/duration.js';
import { describeStoredTarget } from '../../core/notify/notify-target.js';
import type { JobDetail } from '../../ipc/protocol.js';
import { deliveryRows } from './delivery-list.js';
import { renderTable } from './table.js';

/** The NOTIFICATIONS part of `sched show`: targets, events, the dead-man's switch and recent deliveries. */
export function renderJobAlerts(detail: JobDetail): string | null {
  const alerts = detail.job.alerts;
  const deliveries = detail.deliveries ?? [];
  const lines: string[] = [];
  if (alerts && alerts.notify.length > 0)
    lines.push(`Notify:        ${alerts.notify.map(describeStoredTarget).join(', ')}`);
  if (alerts?.notifyOn) lines.push(`Notify on:     ${alerts.notifyOn.join(', ')}`);
  if (alerts?.expectSuccessEveryMs) {
    const overdue =
      detail.overdueSince === null || detail.overdueSince === undefined
        ? ''
        : ` — OVERDUE since ${new Date(detail.overdueSince).toISOString()}`;
    lines.push(`Expect success every ${formatDuration(alerts.expectSuccessEveryMs)}${overdue}`);
  }
  if (deliveries.length > 0)
    lines.push('', 'Recent notifications:', renderTable(...deliveryRows(deliveries)));
  return lines.length === 0 ? null : lines.join('\n');
}
