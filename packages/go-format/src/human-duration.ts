/**
 * Kubernetes' `duration.HumanDuration` (k8s.io/apimachinery/pkg/util/duration), the Age column of
 * `kubectl get`: 5s, 2m30s, 10m, 3h20m, 2d, 1y30d. Up to 2 s in the future still reads `0s`
 * (clock skew); further is `<invalid>`.
 */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/**
 * The age of an object as kubectl's printers show it (`translateTimestampSince`): `<unknown>` when the
 * timestamp is missing or unreadable, else the human duration since then.
 */
export function timestampAge(timestamp: unknown, now: number = Date.now()): string {
  const time = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
  return Number.isNaN(time) ? '<unknown>' : humanDuration(now - time);
}
