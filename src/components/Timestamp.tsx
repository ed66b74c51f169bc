const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Formats in UTC by hand: the server and the browser sit in different time zones and
 * locales, and any difference between their output is a hydration mismatch.
 */
const utcIso = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/;

export function formatPublished(iso: string): string {
  // Store times are ISO 8601 in UTC; reading the fields from the text skips a Date per timestamp
  // (a page has a dozen or more). Anything else goes through Date.
  const m = utcIso.exec(iso.endsWith('Z') ? iso : toUtcIso(iso));
  if (!m) return '';
  const [, year, month, day, hh, mm] = m;
  return `${Number(day)} ${months[Number(month) - 1]} ${year}, ${hh}:${mm} UTC`;
}

function toUtcIso(text: string): string {
  const time = new Date(text).getTime();
  return Number.isNaN(time) ? '' : new Date(time).toISOString();
}

export function Timestamp({ iso, label }: { iso: string; label?: string }) {
  return (
    <time dateTime={iso}>
      {label ? `${label} ` : ''}
      {formatPublished(iso)}
    </time>
  );
}
