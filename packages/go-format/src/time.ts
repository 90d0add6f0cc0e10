/**
 * `metav1.Time` and `metav1.MicroTime` as Kubernetes serialises them: RFC 3339 in UTC with whole
 * seconds (`2024-01-02T03:04:05Z`), or with exactly six fraction digits (`…05.123000Z`, what
 * Leases and Events carry). JavaScript dates have milliseconds, so the last three digits are 0.
 */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function formatMicroTime(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

let cachedSecond = Number.NaN;
let cachedText = '';

/** `formatTime` of now; formatted once per second, as a busy server asks for it on every write. */
export function nowTime(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedText = formatTime(new Date(second * 1000));
  }
  return cachedText;
}
