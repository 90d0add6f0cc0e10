/** A bundle a namespace pass is about to plan, with what approval its Subscriptions ask for. */
export interface PlannedBundle {
  readonly name: string;
  readonly package: string;
  /** Some Subscription it satisfies asks for Manual approval. */
  readonly manual: boolean;
  readonly properties: readonly { readonly type: string; readonly value: unknown }[];
}

const field = (value: unknown, key: string): string => {
  const found = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === 'string' ? found : '';
};
const gvkKey = (value: unknown) => `${field(value, 'group')}/${field(value, 'version')}/${field(value, 'kind')}`;

/**
 * The Manual bundles to leave out of this pass's plan, so that they wait for approval in a plan of their
 * own (the next pass makes it) while the others install now: all of them, unless a bundle that does not
 * need approval requires one of them (by package or by API), in which case the plan holds both and waits,
 * because what it installs cannot run without the approved part.
 */
export function bundlesForALaterPlan(bundles: readonly PlannedBundle[]): Set<string> {
  const manual = bundles.filter((bundle) => bundle.manual);
  const automatic = bundles.filter((bundle) => !bundle.manual);
  if (manual.length === 0 || automatic.length === 0) return new Set();
  const requiredPackages = new Set<string>();
  const requiredApis = new Set<string>();
  for (const property of automatic.flatMap((bundle) => bundle.properties)) {
    if (property.type === 'olm.package.required') requiredPackages.add(field(property.value, 'packageName'));
    if (property.type === 'olm.gvk.required') requiredApis.add(gvkKey(property.value));
  }
  const required = manual.some(
    (bundle) => requiredPackages.has(bundle.package) || bundle.properties.some((property) => property.type === 'olm.gvk' && requiredApis.has(gvkKey(property.value))),
  );
  return required ? new Set() : new Set(manual.map((bundle) => bundle.name));
}
