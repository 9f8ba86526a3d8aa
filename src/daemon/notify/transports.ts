import { createHmac } from 'node:crypto';
import type nodemailer from 'nodemailer';
import { request } from 'undici';
import type { NotifyMessage } from '../../core/notify/message.js';
import { parseNotifyTarget, type NotifyTarget } from '../../core/notify/notify-target.js';

/** How a target answered: delivered or not, and what it said, for `sched notifications` and `notify test`. */
export interface TargetAnswer {
  ok: boolean;
  /** Such as `HTTP 200` or `250 2.0.0 OK`. */
  answer: string;
}

export interface TransportSettings {
  /** Signs webhook bodies (`X-Sched-Signature: sha256=<hex>`); never logged or stored. */
  webhookSecret: string | null;
  /** `smtp://user:pass@host:port` or `smtps://…`; null sends through the host's sendmail. */
  smtpUrl: string | null;
  from: string;
  timeoutMs: number;
}

/** Sends one message to one target. Throws only for a bug; a target that refuses is a `TargetAnswer`. */
export async function sendToTarget(
  targetUrl: string,
  message: NotifyMessage,
  settings: TransportSettings,
): Promise<TargetAnswer> {
  const target = parseNotifyTarget(targetUrl);
  try {
    if (target.kind === 'email') return await sendEmail(target.to, message, settings);
    return await post(target, message, settings);
  } catch (error) {
    return { ok: false, answer: withoutCredentials((error as Error).message, settings) };
  }
}

async function post(
  target: Exclude<NotifyTarget, { kind: 'email' }>,
  message: NotifyMessage,
  settings: TransportSettings,
): Promise<TargetAnswer> {
  const body = JSON.stringify(bodyFor(target.kind, message));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'sched-notify',
    // Receivers can drop a repeat: a delivery is retried after a crash between sending and recording it.
    'x-sched-delivery': message.deliveryId,
    'x-sched-event': message.event,
  };
  if (target.kind === 'webhook' && settings.webhookSecret !== null)
    headers['x-sched-signature'] =
      `sha256=${createHmac('sha256', settings.webhookSecret).update(body).digest('hex')}`;
  const response = await request(target.url, {
    method: 'POST',
    headers,
    body,
    headersTimeout: settings.timeoutMs,
    bodyTimeout: settings.timeoutMs,
  });
  const text = (await response.body.text()).slice(0, 200).trim();
  const ok = response.statusCode >= 200 && response.statusCode < 300;
  return { ok, answer: `HTTP ${response.statusCode}${text && !ok ? `: ${text}` : ''}` };
}

function bodyFor(kind: 'webhook' | 'slack' | 'teams', message: NotifyMessage): unknown {
  if (kind === 'webhook') return message;
  const text = readableText(message);
  // Slack's and Teams' incoming webhooks both show a plain `text`.
  return { text };
}

/** The message as a person reads it in a chat or a mail. */
export function readableText(message: NotifyMessage): string {
  const lines = [`[sched] ${message.sentence}`];
  if (message.run) {
    lines.push(`Run ${message.run.id} of job ${message.job.name}, ${message.run.state}.`);
    if (message.run.error) lines.push(`Error: ${message.run.error}`);
  }
  lines.push(`See it with: sched show ${message.job.name}`);
  return lines.join('\n');
}

async function sendEmail(
  to: string,
  message: NotifyMessage,
  settings: TransportSettings,
): Promise<TargetAnswer> {
  // Loaded on the first mail only: about forty modules that every daemon start would otherwise read.
  const { default: mailer } = await import('nodemailer');
  const transport =
    settings.smtpUrl === null
      ? mailer.createTransport({ sendmail: true, newline: 'unix' })
      : mailer.createTransport({
          url: settings.smtpUrl,
          connectionTimeout: settings.timeoutMs,
          greetingTimeout: settings.timeoutMs,
          socketTimeout: settings.timeoutMs,
        } as Parameters<typeof nodemailer.createTransport>[0]);
  try {
    const info = (await transport.sendMail({
      from: settings.from,
      to,
      subject: `[sched] ${message.job.name}: ${message.event}`,
      text: readableText(message),
      headers: { 'X-Sched-Delivery': message.deliveryId },
    })) as { response?: unknown; rejected?: unknown[] };
    const rejected = Array.isArray(info.rejected) ? info.rejected.length : 0;
    return { ok: rejected === 0, answer: String(info.response ?? 'sent').slice(0, 200) };
  } finally {
    transport.close();
  }
}

/** An error text with the SMTP credentials and webhook secret taken out, should a library repeat them. */
function withoutCredentials(text: string, settings: TransportSettings): string {
  let clean = text.replace(/\/\/[^/@\s]*@/g, '//***@');
  if (settings.webhookSecret) clean = clean.split(settings.webhookSecret).join('***');
  if (settings.smtpUrl) {
    const password = safePassword(settings.smtpUrl);
    if (password) clean = clean.split(password).join('***');
  }
  return clean.slice(0, 500);
}

function safePassword(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}
