/** A bundle a namespace pass is about to plan, with what approval its Subscriptions ask for. */
export interface PlannedBundle {
  readonly name: string;
  readonly package: string;
  /** Some Subscription it satisfies asks for Manual approval. */
  readonly manual: boolean;
  /** Some Subscription asks for it (else it is only a dependency of others). */
  readonly subscribed: boolean;
  readonly properties: readonly { readonly type: string; readonly value: unknown }[];
}

const field = (value: unknown, key: string): string => {
  const found = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === 'string' ? found : '';
};
const gvkKey = (value: unknown) => `${field(value, 'group')}/${field(value, 'version')}/${field(value, 'kind')}`;

/** What bundles require: packages by name and APIs by group/version/kind. */
function requirementsOf(bundles: readonly PlannedBundle[]): { packages: Set<string>; apis: Set<string> } {
  const packages = new Set<string>();
  const apis = new Set<string>();
  for (const property of bundles.flatMap((bundle) => bundle.properties)) {
    if (property.type === 'olm.package.required') packages.add(field(property.value, 'packageName'));
    if (property.type === 'olm.gvk.required') apis.add(gvkKey(property.value));
  }
  return { packages, apis };
}

const meets = (bundle: PlannedBundle, required: { packages: Set<string>; apis: Set<string> }): boolean =>
  required.packages.has(bundle.package) || bundle.properties.some((property) => property.type === 'olm.gvk' && required.apis.has(gvkKey(property.value)));

/**
 * The Manual bundles to leave out of this pass's plan, so that they wait for approval in a plan of their
 * own (the next pass makes it) while the others install now. A dependency no Subscription asks for waits
 * with the Manual bundles that need it (it is there only for them). None wait apart when a bundle that does
 * not need approval requires one of them (by package or by API): the plan then holds all and waits, because
 * what it installs cannot run without the approved part.
 */
export function bundlesForALaterPlan(bundles: readonly PlannedBundle[]): Set<string> {
  const manual = bundles.filter((bundle) => bundle.manual);
  if (manual.length === 0) return new Set();
  const neededByManual = requirementsOf(manual);
  const waiting = new Set([...manual, ...bundles.filter((bundle) => !bundle.manual && !bundle.subscribed && meets(bundle, neededByManual))].map((bundle) => bundle.name));
  const automatic = bundles.filter((bundle) => !waiting.has(bundle.name));
  if (automatic.length === 0) return new Set();
  const neededByAutomatic = requirementsOf(automatic);
  return bundles.some((bundle) => waiting.has(bundle.name) && meets(bundle, neededByAutomatic)) ? new Set() : waiting;
}
