/** A JSON object (not an array, not null): manifests are read as untyped JSON. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Absent, null, '', [] or {}: what Go's `omitempty` leaves out and operator-sdk calls missing. */
export const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.keys(value).length === 0);
