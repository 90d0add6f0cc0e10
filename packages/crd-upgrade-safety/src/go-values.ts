/**
 * Go's `%v` of a float64 (upstream prints `minimum`/`maximum` so): the shortest digits, in `%e` form
 * when the exponent is below -4 or at least 6 (`2.5e+06`, `1e-05`; `strconv`'s shortest `%g`).
 */
export function goFloat(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 6) return String(value);
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/**
 * The number of JSON nodes in a value, counted without recursion; `undefined` once past `maxNodes`
 * or nested deeper than `maxDepth`, so an enum value or default nested 100,000 levels deep neither
 * overflows the stack when serialised nor costs unbounded time.
 */
export function jsonNodeCount(value: unknown, maxNodes: number, maxDepth: number): number | undefined {
  let count = 1;
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth >= maxDepth) return undefined;
    const members = Array.isArray(next.value) ? next.value : Object.values(next.value);
    count += members.length;
    if (count > maxNodes) return undefined;
    for (const member of members) pending.push({ value: member, depth: next.depth + 1 });
  }
  return count;
}
