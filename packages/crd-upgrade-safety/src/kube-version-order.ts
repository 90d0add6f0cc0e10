/**
 * Kubernetes' version priority, lowest first (as `CompareKubeAwareVersionStrings` sorts for crdify's
 * served-version pairs): names that are not kube-like, then alpha, beta, GA; higher numbers later.
 */
export function byKubeVersionPriority(left: string, right: string): number {
  const rank = (version: string): [number, number, number] => {
    const match = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
    if (!match) return [0, 0, 0];
    const stability = match[2] === undefined ? 3 : match[2] === 'beta' ? 2 : 1;
    return [stability, Number(match[1]), Number(match[3] ?? 0)];
  };
  const [leftStability, leftMajor, leftMinor] = rank(left);
  const [rightStability, rightMajor, rightMinor] = rank(right);
  if (leftStability !== rightStability) return leftStability - rightStability;
  if (leftMajor !== rightMajor) return leftMajor - rightMajor;
  if (leftMinor !== rightMinor) return leftMinor - rightMinor;
  return left < right ? -1 : left > right ? 1 : 0;
}
