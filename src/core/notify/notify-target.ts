import { inputError } from '../input-error.js';

/** Where a notification goes, by the scheme of its URL. */
export type NotifyTarget =
  | { kind: 'webhook'; url: string }
  | { kind: 'slack'; url: string }
  | { kind: 'teams'; url: string }
  | { kind: 'email'; to: string };

const MAILBOX = /^[^\s@,;<>]+@[^\s@,;<>]+$/;
const HINT =
  'Give an http(s) webhook URL, slack+https://… or teams+https://… for an incoming webhook, or mailto:someone@example.com.';

/** Reads a `--notify` URL; a URL sched cannot deliver to is refused. */
export function parseNotifyTarget(text: string): NotifyTarget {
  const trimmed = text.trim();
  if (/^mailto:/i.test(trimmed)) {
    const to = decodeURIComponent(trimmed.slice('mailto:'.length).split('?')[0] ?? '');
    if (MAILBOX.test(to)) return { kind: 'email', to };
    throw inputError('VALIDATION_FAILED', `Invalid notification address "${text}".`, HINT, { value: text });
  }
  const prefixed = /^(slack|teams)\+(https?:\/\/.*)$/i.exec(trimmed);
  const url = prefixed ? prefixed[2]! : trimmed;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw inputError('VALIDATION_FAILED', `Invalid notification target "${text}".`, HINT, { value: text });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw inputError('VALIDATION_FAILED', `Cannot deliver notifications to "${text}".`, HINT, {
      value: text,
    });
  const kind = prefixed
    ? (prefixed[1]!.toLowerCase() as 'slack' | 'teams')
    : parsed.hostname === 'hooks.slack.com'
      ? 'slack'
      : /\.webhook\.office\.com$/.test(parsed.hostname)
        ? 'teams'
        : 'webhook';
  return { kind, url };
}

/** A target as shown to people: the scheme and host, never a path or query that may hold a token. */
export function describeTarget(text: string): string {
  const target = parseNotifyTarget(text);
  if (target.kind === 'email') return `mailto:${target.to}`;
  const url = new URL(target.url);
  const prefix = target.kind === 'webhook' ? '' : `${target.kind}+`;
  return `${prefix}${url.protocol}//${url.host}${url.pathname === '/' ? '' : '/…'}`;
}

/** `describeTarget` for a stored target, which a later version of the rules might no longer read. */
export function describeStoredTarget(text: string): string {
  try {
    return describeTarget(text);
  } catch {
    return '(unreadable target)';
  }
}
