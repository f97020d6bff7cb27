/**
 * The one time policy for times a person reads (CLI output, mails, the portal): ISO 8601 with the
 * offset, in the configured time zone (SVC_TIME_ZONE, an IANA name, default UTC), to the second:
 * `2026-11-27T03:15:30-05:00`. A reader sees local time and can still compare and parse it.
 * docs/decisions.md "One time policy (issue 26)".
 */
import { runtime } from './runtime.js';

const formats = new Map<string, Intl.DateTimeFormat>();

function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, format);
  }
  return format;
}

/** The configured zone (UTC before the runtime is set up: help, a config error). */
function configuredZone(): string {
  try {
    return runtime().config.timeZone ?? 'UTC';
  } catch {
    return 'UTC';
  }
}

/** `+hh:mm` / `-hh:mm` of an offset in minutes. */
function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** An instant as a person reads it: ISO 8601 with the offset, in `zone` (default: the configured one). */
export function formatInstant(date: Date | string | number, zone: string = configuredZone()): string {
  const instant = date instanceof Date ? date : new Date(date);
  if (Number.isNaN(instant.getTime())) throw new RangeError(`not a time: ${String(date)}`);
  const whole = new Date(Math.floor(instant.getTime() / 1000) * 1000);
  const p = Object.fromEntries(
    formatOf(zone)
      .formatToParts(whole)
      .map((part) => [part.type, part.value]),
  );
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offsetText(Math.round((wall - whole.getTime()) / 60000))}`;
}
