/**
 * Server time is US Eastern (America/New_York): a sale belongs to the Eastern day and month of its
 * submit, whatever the offset (EST or EDT) that day. The SQL side (sales_business_day, the
 * triggers) uses the same zone and the same business-day index.
 */
export const SALES_TIME_ZONE = 'America/New_York';

const dayFormat = new Intl.DateTimeFormat('en-CA', { timeZone: SALES_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });

/** The US Eastern calendar day of an instant, YYYY-MM-DD. */
export function easternDay(at: Date): string {
  return dayFormat.format(at);
}

/** First day of the day's month, YYYY-MM-DD. */
export function monthOf(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/** The day `n` days after (negative: before) `day`, YYYY-MM-DD. */
export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

const EPOCH = Date.UTC(2001, 0, 1); // a Monday

/** Business-day index: weekdays since 2001-01-01; a weekend day has its Friday's (SQL sales_business_day). */
export function businessDayIndex(day: string): number {
  const days = Math.round((Date.parse(`${day}T00:00:00Z`) - EPOCH) / 86_400_000);
  return Math.floor(days / 7) * 5 + Math.min(days % 7, 4);
}

/**
 * The streak as of `today`: the stored run counts while its last day is today or the business day
 * before (a Monday keeps Friday's run; the first sale of the day extends it); otherwise it is broken.
 */
export function currentStreak(streakDays: number, lastDay: string | null, today: string): number {
  if (!lastDay || streakDays <= 0) return 0;
  return businessDayIndex(today) - businessDayIndex(lastDay) <= 1 ? streakDays : 0;
}
