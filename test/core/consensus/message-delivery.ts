/** A member of a group driven by messages, as the pure Raft node is. */
interface Steppable<M> {
  readonly id: string;
  step(message: M): void;
  takeReady(): { messages: M[] };
}

/**
 * Delivers messages in order until none is left (or `maxSteps` were delivered), starting with `first` and
 * what the members have ready, except those `lost` says are lost; returns every message that was sent.
 */
export function deliverAll<M extends { to: string }>(
  members: readonly Steppable<M>[],
  {
    first = [],
    lost = () => false,
    maxSteps = 1_000,
  }: { first?: M[]; lost?: (message: M) => boolean; maxSteps?: number } = {},
): M[] {
  const byId = new Map(members.map((member) => [member.id, member]));
  const queue = [...first];
  for (const member of members) queue.push(...member.takeReady().messages);
  const sent = [...queue];
  for (let step = 0; queue.length > 0 && step < maxSteps; step++) {
    const message = queue.shift()!;
    const target = byId.get(message.to);
    if (!target || lost(message)) continue;
    target.step(message);
    const out = target.takeReady().messages;
    queue.push(...out);
    sent.push(...out);
  }
  return sent;
}
