const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Formats in UTC by hand: the server and the browser sit in different time zones and
 * locales, and any difference between their output is a hydration mismatch.
 */
export function formatPublished(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${d.getUTCDate()} ${months[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${hh}:${mm} UTC`;
}

export function Timestamp({ iso, label }: { iso: string; label?: string }) {
  return (
    <time dateTime={iso}>
      {label ? `${label} ` : ''}
      {formatPublished(iso)}
    </time>
  );
}
