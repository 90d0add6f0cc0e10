import {
  ConstraintErrorCodes,
  describeError,
  hasErrorCode,
  type BundlePredicate,
  type CatalogContent,
  type CatalogRef,
  type ConstraintEvaluator,
  type GroupVersionKind,
  type InstalledOperator,
  type NamespaceResolution as ResolutionOf,
  type NamespaceResolver,
  type Property,
  type ResolvedOperator,
  type ResolveInput,
  type ResolverCatalog,
  type ResolverSubscription,
  type SatBackend,
  type SliceOptions,
  type WithheldUpdate,
} from '@olm/core';
import { parseRange, type Version } from '@olm/semver-range';
import { channelKey, indexCatalog, type CatalogEntryRecord, type CatalogIndex } from './catalog-index.js';
import { builtInConstraintEvaluators, ConstraintTooDeepError, DependencyCompiler, type DependencyPredicate } from './dependency-predicates.js';
import { aggregateMessage, invalidInput } from './errors.js';
import { resolveWithFailureScope, subscriptionVariableId } from './failure-scope.js';
import { gvkKey, packageProperties, providedGvks, type IndexedPredicate } from './predicates.js';
import { EvaluationMeter, resolveResolutionLimits, type ResolutionLimits } from './resolution-budget.js';
import { emptyStats, solveInSteps, type ChoiceReason, type SolveStats, type SolverConstraint, type SolverVariable } from './solver.js';
import { sortChannel } from './sort-channel.js';
import { tolerantVersion, withinVersionPin } from './version-pin.js';
import { Pacer, runInSlices, runToEnd, straightThrough, type Steps } from './work-slices.js';

// The input and output types are core's `namespaceResolver` contract, which this resolver implements.
export type { InstalledOperator, ResolvedOperator, ResolveInput, ResolverCatalog, ResolverSubscription, SliceOptions };

export interface ResolutionStats extends SolveStats {
  /** Bundle variables built (catalog entries and installed operators reachable from the input). */
  bundleVariables: number;
  /** Units of the evaluation budget spent (`ResolutionLimits.evaluationUnits`). */
  evaluationUnits: number;
  /** Time spent building variables and constraints, and in the SAT search (for benches; never assert on them). */
  buildMs: number;
  solveMs: number;
}

export type Resolution = ResolutionOf<ResolutionStats>;

/** A catalog bundle as a system constraint provider sees it. */
export interface SystemConstraintSubject {
  readonly name: string;
  readonly package: string;
  readonly channel: string;
  readonly catalog: CatalogRef;
  readonly properties: readonly Property[];
}

/** A constraint the platform adds to a catalog bundle (upstream's system constraint provider). */
export type SystemConstraint = { readonly kind: 'prohibited' | 'mandatory'; readonly message: string };

export interface ResolverOptions {
  readonly satBackend: SatBackend;
  /**
   * Extra constraints for catalog bundles (never installed ones), e.g. prohibiting bundles a cluster
   * policy does not allow. Their messages appear in conflicts like any other.
   */
  readonly systemConstraints?: (bundle: SystemConstraintSubject) => readonly SystemConstraint[];
  /** `olm.constraint` evaluators by kind (the kernel's `constraintEvaluators` point). Defaults to the built-in kinds. */
  readonly constraintEvaluators?: ReadonlyMap<string, ConstraintEvaluator> | Iterable<ConstraintEvaluator>;
  /** How much work one resolution may do (`defaultResolutionLimits` for what is not given). */
  readonly limits?: Partial<ResolutionLimits>;
}

export interface Resolver extends NamespaceResolver {
  /**
   * Resolves a namespace at once (a CLI, a test). Throws `OLM_RESOLVER_UNSATISFIABLE`,
   * `OLM_RESOLVER_INVALID_INPUT` or `OLM_RESOLVER_BUDGET_EXHAUSTED`.
   */
  resolve(input: ResolveInput): Resolution;
  /**
   * The same resolution, in slices of about `sliceMs` that give the event loop a turn between them,
   * so that a long resolution does not starve a server or other work in the process (a controller).
   * A slice runs longer only by what cannot be split: one candidate test or one SAT call.
   */
  resolveInSlices(input: ResolveInput, options?: SliceOptions): Promise<Resolution>;
}

export const defaultSliceMs = 20;

export function createResolver(options: ResolverOptions): Resolver {
  const evaluators = evaluatorMap(options.constraintEvaluators);
  const compiler = new DependencyCompiler(evaluators);
  const limits = resolveResolutionLimits(options.limits);
  const resolution = (input: ResolveInput, pacer: Pacer) => {
    // One budget for every run of a resolution (failureScope 'subscription' may run several).
    const meter = new EvaluationMeter(limits.evaluationUnits);
    return resolveWithFailureScope(input, (each) => new NamespaceResolution(each, options.satBackend, compiler, limits, pacer, meter, options.systemConstraints).run());
  };
  return {
    resolve: (input) => runToEnd(resolution(input, straightThrough)),
    async resolveInSlices(input, sliceOptions = {}) {
      const pacer = new Pacer(sliceOptions.sliceMs ?? defaultSliceMs);
      return runInSlices(resolution(input, pacer), pacer, sliceOptions.signal);
    },
  };
}

function evaluatorMap(given: ResolverOptions['constraintEvaluators']): ReadonlyMap<string, ConstraintEvaluator> {
  if (given === undefined) return new Map(builtInConstraintEvaluators.map((each) => [each.kind, each]));
  if (given instanceof Map) return given as ReadonlyMap<string, ConstraintEvaluator>;
  return new Map([...(given as Iterable<ConstraintEvaluator>)].map((each) => [each.kind, each]));
}

interface CatalogInfo {
  readonly ref: CatalogRef;
  readonly key: string;
  readonly priority: number;
  readonly isExisting: boolean;
  readonly index: CatalogIndex;
}

/** A catalog entry placed in a catalog: what becomes a bundle variable. */
interface Entry {
  readonly id: string;
  readonly record: CatalogEntryRecord;
  readonly catalog: CatalogInfo;
  /** Installed entries: the subscription whose installedCSV names it. */
  readonly subscription?: ResolverSubscription;
}

interface BundleVariable extends SolverVariable {
  readonly kind: 'bundle';
  readonly entry: Entry;
  readonly constraints: SolverConstraint[];
  replaces?: string;
}

interface GenericVariable extends SolverVariable {
  readonly kind: 'generic';
  readonly subscription?: ResolverSubscription;
}

type Variable = BundleVariable | GenericVariable;

const existingCatalogName = '@existing';

/** One resolution of one namespace: builds the variables, solves, and describes the answer. */
class NamespaceResolution {
  private readonly catalogs: CatalogInfo[];
  private readonly existing: CatalogInfo;
  private readonly entryCache = new Map<CatalogInfo, Map<CatalogEntryRecord, Entry>>();
  private readonly variables = new Map<string, Variable>();
  private readonly visited = new Map<Entry, BundleVariable>();
  private readonly matchCache = new Map<DependencyPredicate, Entry[]>();
  private readonly candidateCache = new Map<DependencyPredicate, Map<CatalogInfo, Entry[]>>();
  private readonly errors: string[] = [];
  private readonly withheld = new Map<string, WithheldUpdate>();
  private readonly stats: ResolutionStats = { ...emptyStats(), bundleVariables: 0, evaluationUnits: 0, buildMs: 0, solveMs: 0 };

  constructor(
    private readonly input: ResolveInput,
    private readonly backend: SatBackend,
    private readonly compiler: DependencyCompiler,
    private readonly limits: ResolutionLimits,
    private readonly pacer: Pacer,
    private readonly meter: EvaluationMeter,
    private readonly systemConstraints?: ResolverOptions['systemConstraints'],
  ) {
    this.catalogs = input.catalogs.map((catalog) => ({
      ref: { name: catalog.name, namespace: catalog.namespace },
      key: `${catalog.name}/${catalog.namespace}`,
      priority: catalog.priority ?? 0,
      isExisting: false,
      index: indexCatalog(catalog.content),
    }));
    const seen = new Set<string>();
    for (const catalog of this.catalogs) {
      if (seen.has(catalog.key)) throw invalidInput(`catalog ${catalog.ref.namespace}/${catalog.ref.name} is listed twice`);
      seen.add(catalog.key);
    }
    this.existing = this.existingCatalog();
  }

  /** The resolution as steps that pause where the pacer says (never, when run straight through). */
  *run(): Steps<Resolution> {
    const started = performance.now();
    const installedEntries = this.existing.index.entries.map((record) => this.entryOf(this.existing, record));
    yield* this.bundleVariables(installedEntries);
    for (const subscription of this.input.subscriptions ?? []) {
      try {
        this.addVariables(yield* this.subscriptionVariables(subscription));
      } catch (error) {
        this.keep(error);
      }
    }
    if (this.errors.length > 0) throw invalidInput(aggregateMessage(this.errors), { errors: [...this.errors] });
    yield* this.addInvariants();
    const ordered = [...this.variables.values()];
    this.stats.bundleVariables = this.visited.size;
    this.stats.evaluationUnits = this.meter.spent;
    const built = performance.now();
    this.stats.buildMs = round(built - started);
    try {
      const { chosen, reasons } = yield* solveInSteps(ordered, this.backend, this.stats, { maxSolverCalls: this.limits.solverCalls, maxConflictsPerCall: this.limits.solverConflicts }, this.pacer);
      const withheldUpdates = [...this.withheld.values()];
      return { status: 'Resolved', operators: this.describeResult(chosen, reasons), ...(withheldUpdates.length > 0 ? { withheldUpdates } : {}), stats: this.stats };
    } finally {
      this.stats.solveMs = round(performance.now() - built);
    }
  }

  private addVariables(variables: Iterable<Variable>): void {
    for (const variable of variables) if (!this.variables.has(variable.id)) this.variables.set(variable.id, variable);
  }

  // ---- the virtual catalog of installed operators -------------------------------------------

  private existingCatalog(): CatalogInfo {
    const installed = this.input.failForward ? this.withoutFailedChains(this.input.installed ?? []) : (this.input.installed ?? []);
    const records: CatalogEntryRecord[] = installed.map((operator) => {
      const properties = operator.properties ? [...operator.properties] : this.inferProperties(operator);
      const version = operator.version ?? packageProperties(properties)[0]?.version ?? '';
      return {
        name: operator.name,
        package: packageProperties(properties)[0]?.name ?? '',
        channel: '',
        isDefaultChannel: false,
        replaces: operator.replaces,
        skips: [],
        skipRange: undefined,
        version,
        properties,
        isDeprecated: properties.some((property) => property.type === 'olm.deprecated'),
      };
    });
    const index: CatalogIndex = { entries: records, byPackage: new Map(), byChannel: new Map(), byGvk: new Map(), sortedChannels: new Map() };
    return {
      ref: { name: existingCatalogName, namespace: this.input.namespace },
      key: `${existingCatalogName}/${this.input.namespace}`,
      priority: 0,
      isExisting: true,
      index,
    };
  }

  /**
   * Fail-forward: drops `Replacing` CSVs whose chain of replacements ends in a `Failed` one. Every CSV
   * before the end of a chain must be `Replacing` and appear once, or the installed operators are
   * refused as upstream refuses its `@existing` catalog.
   */
  private withoutFailedChains(installed: readonly InstalledOperator[]): InstalledOperator[] {
    const namespace = this.input.namespace;
    const replacementOf = new Map<string, InstalledOperator>();
    for (const operator of installed) if (operator.replaces) replacementOf.set(operator.replaces, operator);
    return installed.filter((operator) => {
      const seen = new Set<string>();
      let current = operator;
      for (let next = replacementOf.get(current.name); next; next = replacementOf.get(current.name)) {
        const problem =
          (current.phase ?? '') !== 'Replacing'
            ? `csv ${namespace}/${current.name} in phase ${current.phase ?? ''} instead of Replacing`
            : seen.has(current.name)
              ? `csv ${namespace}/${current.name} has already been seen`
              : undefined;
        if (problem) throw invalidInput(`error using catalogsource ${namespace}/${existingCatalogName}: ${problem}`);
        seen.add(current.name);
        current = next;
      }
      return !(operator.phase === 'Replacing' && current.phase === 'Failed');
    });
  }

  /**
   * Upstream's inference for a CSV without the properties annotation: its owned and required APIs,
   * and `olm.package` when the subscriptions naming it as installedCSV agree on one package (the
   * catalog is not consulted: the CSV may no longer be in it).
   */
  private inferProperties(operator: InstalledOperator): Property[] {
    const properties: Property[] = [
      ...(operator.providedApis ?? []).map((gvk) => ({ type: 'olm.gvk', value: { group: gvk.group, kind: gvk.kind, version: gvk.version } })),
      ...(operator.requiredApis ?? []).map((gvk) => ({ type: 'olm.gvk.required', value: { group: gvk.group, kind: gvk.kind, version: gvk.version } })),
    ];
    const packages = new Set<string>();
    for (const subscription of this.input.subscriptions ?? []) {
      if (subscription.installedCSV === operator.name && subscription.package) packages.add(subscription.package);
    }
    if (packages.size === 1) properties.push({ type: 'olm.package', value: { packageName: [...packages][0], version: operator.version ?? '' } });
    return properties;
  }

  private entryOf(catalog: CatalogInfo, record: CatalogEntryRecord): Entry {
    let entries = this.entryCache.get(catalog);
    if (!entries) {
      entries = new Map();
      this.entryCache.set(catalog, entries);
    }
    let entry = entries.get(record);
    if (!entry) {
      const subscription = catalog.isExisting
        ? (this.input.subscriptions ?? []).find((each) => each.installedCSV === record.name)
        : undefined;
      entry = {
        id: `${catalog.ref.name}/${catalog.ref.namespace}/${record.channel}/${record.name}`,
        record,
        catalog,
        ...(subscription ? { subscription } : {}),
      };
      entries.set(record, entry);
    }
    return entry;
  }

  // ---- subscriptions -------------------------------------------------------------------------

  private *subscriptionVariables(subscription: ResolverSubscription): Steps<Variable[]> {
    const variables: Variable[] = [];
    const current = subscription.installedCSV
      ? this.existing.index.entries.find((record) => record.name === subscription.installedCSV)
      : undefined;
    const currentEntry = current ? this.entryOf(this.existing, current) : undefined;
    const catalog = this.catalogs.find((each) => each.ref.name === subscription.source && each.ref.namespace === subscription.sourceNamespace);
    const channel = subscription.channel ?? '';
    const all = catalog?.index.entries ?? [];
    const inPackage = catalog?.index.byPackage.get(subscription.package) ?? [];
    const inChannel = channel === '' ? inPackage : inPackage.filter((record) => record.channel === channel);
    const startingCSV = !current && subscription.startingCSV ? subscription.startingCSV : undefined;
    const matching = startingCSV ? inChannel.filter((record) => record.name === startingCSV) : inChannel;
    const invalid =
      all.length === 0
        ? `no operators found from catalog ${subscription.source} in namespace ${subscription.sourceNamespace} referenced by subscription ${subscription.name}`
        : inPackage.length === 0
          ? `no operators found in package ${subscription.package} in the catalog referenced by subscription ${subscription.name}`
          : inChannel.length === 0
            ? `no operators found in channel ${channel} of package ${subscription.package} in the catalog referenced by subscription ${subscription.name}`
            : matching.length === 0
              ? `no operators found with name ${subscription.startingCSV} in channel ${channel} of package ${subscription.package} in the catalog referenced by subscription ${subscription.name}`
              : undefined;
    if (invalid !== undefined || !catalog) {
      return [
        {
          kind: 'generic',
          id: subscriptionVariableId(subscription.name),
          subscription,
          constraints: [
            { kind: 'mandatory', message: `subscription ${subscription.name} exists` },
            { kind: 'prohibited', message: invalid ?? '' },
          ],
        },
      ];
    }

    // Default channel first, then channel name; each channel newest first.
    const channelNames = [...new Set(matching.map((record) => record.channel))].sort((a, b) => {
      const aDefault = matching.some((record) => record.channel === a && record.isDefaultChannel);
      const bDefault = matching.some((record) => record.channel === b && record.isDefaultChannel);
      return aDefault === bDefault ? (a < b ? -1 : a > b ? 1 : 0) : aDefault ? -1 : 1;
    });
    const sorted: CatalogEntryRecord[] = [];
    for (const name of channelNames) {
      sorted.push(...sortChannel(matching.filter((record) => record.channel === name), name, subscription.package));
    }
    const currentVersion = current ? tolerantVersion(current.version) : undefined;
    const updates = current ? sorted.filter((record) => this.canReplace(record, current, currentVersion)) : sorted;
    const pinned = withinVersionPin(subscription, updates);
    if ('withheld' in pinned && pinned.withheld) this.withheld.set(subscription.name, pinned.withheld);
    if ('invalid' in pinned) {
      return [{ kind: 'generic', id: subscriptionVariableId(subscription.name), subscription, constraints: [{ kind: 'mandatory', message: `subscription ${subscription.name} exists` }, { kind: 'prohibited', message: pinned.invalid }] }];
    }
    const acceptable = pinned.allowed;

    const candidates: BundleVariable[] = [];
    for (const record of acceptable) {
      // The bundle in each of its channels, in channel preference (the default channel first): the
      // first is the one the solver prefers, so it is the channel reported (upstream seeds: "the
      // default channel is always preferred").
      const stack = sorted.filter((each) => each.name === record.name).map((each) => this.entryOf(catalog, each));
      const { initial } = yield* this.bundleVariables(stack);
      for (const candidate of initial) if (!candidates.includes(candidate)) candidates.push(candidate);
    }
    const dependencyIds: string[] = [];
    for (const candidate of candidates) {
      if (currentEntry) {
        candidate.replaces = currentEntry.record.name;
        candidate.constraints.push({ kind: 'conflict', id: currentEntry.id });
      }
      dependencyIds.push(candidate.id);
    }
    if (currentEntry) dependencyIds.push(currentEntry.id);
    const requirement =
      dependencyIds.length === 1
        ? dependencyIds[0]!
        : `at least one of ${dependencyIds.slice(0, -1).join(', ')} or ${dependencyIds[dependencyIds.length - 1]!}`;
    variables.push({
      kind: 'generic',
      id: subscriptionVariableId(subscription.name),
      subscription,
      constraints: [
        { kind: 'mandatory', message: `subscription ${subscription.name} exists` },
        dependencyIds.length === 0
          ? { kind: 'dependency', ids: [], message: `no operators found matching the criteria of subscription ${subscription.name}` }
          : { kind: 'dependency', ids: dependencyIds, message: `subscription ${subscription.name} requires ${requirement}` },
      ],
    });
    return variables;
  }

  /** Upstream's update edge: replaces or skips the installed CSV, or its skipRange holds the installed version. */
  private canReplace(record: CatalogEntryRecord, current: CatalogEntryRecord, currentVersion: Version | undefined): boolean {
    if (record.replaces === current.name || record.skips.includes(current.name)) return true;
    if (!record.skipRange || !currentVersion) return false;
    try {
      return parseRange(record.skipRange).test(currentVersion);
    } catch {
      return false;
    }
  }

  // ---- bundles and their dependencies --------------------------------------------------------

  /** Builds variables for `stack` and everything reachable through dependencies (as upstream, LIFO). */
  private *bundleVariables(stack: Entry[]): Steps<{ initial: BundleVariable[] }> {
    const pending = [...stack];
    while (pending.length > 0) {
      if (this.pacer.isDue()) yield;
      const entry = pending.pop()!;
      if (this.visited.has(entry)) continue;
      const variable = this.newBundleVariable(entry);
      this.visited.set(entry, variable);
      let dependencies: DependencyPredicate[];
      try {
        dependencies = yield* this.dependenciesOf(entry);
      } catch (error) {
        this.keep(error);
        continue;
      }
      for (const dependency of dependencies) {
        let candidates: Entry[];
        try {
          this.meter.chargeTo({ id: entry.id, name: entry.record.name, catalog: entry.catalog.ref }, this.chargedConstraint(dependency));
          candidates = yield* this.candidatesFor(dependency, entry);
        } catch (error) {
          this.keep(error);
          continue;
        }
        for (const candidate of candidates) if (!this.visited.has(candidate)) pending.push(candidate);
        const sentence = `bundle ${entry.record.name} requires an operator ${this.describe(dependency)}`;
        // Authors' failureMessages follow upstream's sentence (cel predicates already quote theirs).
        const extra = dependency.failureMessages.filter((message) => !sentence.includes(message) && !sentence.includes(JSON.stringify(message)));
        variable.constraints.push({
          kind: 'dependency',
          ids: this.idsOf(candidates),
          message: extra.length > 0 ? `${sentence}: ${extra.join('; ')}` : sentence,
          ...(dependency.failureMessages.length > 0 ? { failureMessages: dependency.failureMessages } : {}),
        });
      }
    }
    return { initial: stack.map((entry) => this.visited.get(entry)!).filter(Boolean) };
  }

  /** Input errors are collected and reported together; running out of budget ends the resolution at once. */
  private keep(error: unknown): void {
    if (hasErrorCode(error, ConstraintErrorCodes.budgetExhausted)) throw error;
    this.errors.push(describeError(error));
  }

  private readonly chargedConstraints = new Map<DependencyPredicate, { describe(): string; failureMessages: readonly string[] }>();

  private chargedConstraint(dependency: DependencyPredicate) {
    let charged = this.chargedConstraints.get(dependency);
    if (!charged) {
      charged = { describe: () => this.describe(dependency), failureMessages: dependency.failureMessages };
      this.chargedConstraints.set(dependency, charged);
    }
    return charged;
  }

  /** Tests a candidate on the resolution's budget: one unit, plus what the evaluator spends. */
  private test(predicate: BundlePredicate, record: CatalogEntryRecord): boolean {
    this.meter.spend(1);
    const isMatch = predicate.test({ properties: record.properties, budget: this.meter });
    // An evaluator that caught the budget's error (against the contract) does not get to go on.
    const exhausted = this.meter.error();
    if (exhausted) throw exhausted;
    return isMatch;
  }

  private readonly descriptions = new Map<DependencyPredicate, string>();
  private readonly candidateIds = new WeakMap<Entry[], string[]>();

  private describe(dependency: DependencyPredicate): string {
    let text = this.descriptions.get(dependency);
    if (text === undefined) {
      text = dependency.predicate.describe();
      this.descriptions.set(dependency, text);
    }
    return text;
  }

  /** Candidate lists are shared (cached per dependency), and so are their id lists. */
  private idsOf(candidates: Entry[]): string[] {
    let ids = this.candidateIds.get(candidates);
    if (!ids) {
      ids = candidates.map((candidate) => candidate.id);
      this.candidateIds.set(candidates, ids);
    }
    return ids;
  }

  /** A bundle's variable, registered at once so variables keep the order in which they were found. */
  private newBundleVariable(entry: Entry): BundleVariable {
    const constraints: SolverConstraint[] = [];
    if (entry.catalog.isExisting && !entry.subscription) {
      constraints.push({ kind: 'mandatory', message: `clusterserviceversion ${entry.record.name} exists and is not referenced by a subscription` });
    }
    if (entry.record.isDeprecated) constraints.push({ kind: 'prohibited', message: `bundle ${entry.id} is deprecated` });
    if (this.systemConstraints && !entry.catalog.isExisting) {
      const { record } = entry;
      const subject = { name: record.name, package: record.package, channel: record.channel, catalog: entry.catalog.ref, properties: record.properties };
      for (const constraint of this.systemConstraints(subject)) constraints.push({ kind: constraint.kind, message: constraint.message });
    }
    const variable: BundleVariable = { kind: 'bundle', id: entry.id, entry, constraints };
    if (!this.variables.has(variable.id)) this.variables.set(variable.id, variable);
    return variable;
  }

  /** Compiling is cached per process, not charged to the budget; a bundle with thousands of new rules still pauses between them. */
  private *dependenciesOf(entry: Entry): Steps<DependencyPredicate[]> {
    const dependencies: DependencyPredicate[] = [];
    for (const property of entry.record.properties) {
      if (this.pacer.isDue()) yield;
      let dependency: DependencyPredicate | undefined;
      try {
        dependency = this.compiler.compile(property);
      } catch (error) {
        // Upstream's constraint errors do not name the bundle; this one is ours, and does.
        if (!(error instanceof ConstraintTooDeepError)) throw error;
        throw new Error(`bundle ${entry.record.name} (catalogsource ${entry.catalog.ref.namespace}/${entry.catalog.ref.name}): ${error.message}`);
      }
      if (dependency) dependencies.push(dependency);
    }
    return dependencies;
  }

  /**
   * The entries that satisfy a dependency, in preference order: whole channels (or installed CSVs)
   * containing a match are ordered by catalog preference, then default channel, package and channel
   * name, each channel newest first; then the predicate filters them.
   */
  private *candidatesFor(dependency: DependencyPredicate, dependent: Entry): Steps<Entry[]> {
    // The answer depends only on the dependency and the dependent's catalog.
    let byDependentCatalog = this.candidateCache.get(dependency);
    if (!byDependentCatalog) {
      byDependentCatalog = new Map();
      this.candidateCache.set(dependency, byDependentCatalog);
    }
    let candidates = byDependentCatalog.get(dependent.catalog);
    if (!candidates) {
      candidates = yield* this.orderedCandidates(dependency, dependent.catalog);
      byDependentCatalog.set(dependent.catalog, candidates);
    }
    return candidates;
  }

  private *orderedCandidates(dependency: DependencyPredicate, dependentCatalog: CatalogInfo): Steps<Entry[]> {
    let matches = this.matchCache.get(dependency);
    if (!matches) {
      matches = yield* this.matchingEntries(dependency.predicate as IndexedPredicate);
      this.matchCache.set(dependency, matches);
    }
    const byCatalog = new Map<CatalogInfo, Set<string>>();
    for (const match of matches) {
      const sources = byCatalog.get(match.catalog) ?? new Set<string>();
      sources.add(match.catalog.isExisting ? match.record.name : channelKey(match.record.package, match.record.channel));
      byCatalog.set(match.catalog, sources);
    }
    const catalogs = [...byCatalog.keys()].sort((a, b) => this.compareCatalogs(a, b, dependentCatalog));
    const result: Entry[] = [];
    for (const catalog of catalogs) {
      const sources = byCatalog.get(catalog)!;
      if (catalog.isExisting) {
        for (const name of [...sources].sort()) {
          if (this.pacer.isDue()) yield;
          const record = catalog.index.entries.find((each) => each.name === name)!;
          const entry = this.entryOf(catalog, record);
          if (this.test(dependency.predicate, record)) result.push(entry);
        }
        continue;
      }
      const channels = [...sources].map((key) => {
        const records = catalog.index.byChannel.get(key)!;
        return { key, records, isDefault: records[0]!.isDefaultChannel, pkg: records[0]!.package, channel: records[0]!.channel };
      });
      channels.sort((a, b) =>
        a.isDefault !== b.isDefault ? (a.isDefault ? -1 : 1) : a.pkg !== b.pkg ? (a.pkg < b.pkg ? -1 : 1) : a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0,
      );
      for (const channel of channels) {
        for (const record of this.sortedChannel(catalog, channel.key, channel.records)) {
          if (this.pacer.isDue()) yield;
          if (this.test(dependency.predicate, record)) result.push(this.entryOf(catalog, record));
        }
      }
    }
    return result;
  }

  private sortedChannel(catalog: CatalogInfo, key: string, records: readonly CatalogEntryRecord[]): readonly CatalogEntryRecord[] {
    let sorted = catalog.index.sortedChannels.get(key);
    if (!sorted) {
      try {
        sorted = sortChannel(records, records[0]!.channel, records[0]!.package);
      } catch (error) {
        sorted = error instanceof Error ? error : new Error(describeError(error));
      }
      catalog.index.sortedChannels.set(key, sorted);
    }
    if (sorted instanceof Error) throw sorted;
    return sorted;
  }

  /** Every entry of every visible catalog (installed ones included) that satisfies the predicate. */
  private *matchingEntries(predicate: IndexedPredicate): Steps<Entry[]> {
    const result: Entry[] = [];
    for (const catalog of [this.existing, ...this.catalogs]) {
      const hint = predicate.indexHint;
      const records = catalog.isExisting
        ? catalog.index.entries
        : hint?.kind === 'gvk'
          ? (catalog.index.byGvk.get(hint.key) ?? [])
          : hint?.kind === 'package'
            ? (catalog.index.byPackage.get(hint.name) ?? [])
            : catalog.index.entries;
      const tested = new Map<readonly Property[], boolean>();
      for (const record of records) {
        if (this.pacer.isDue()) yield;
        let isMatch = tested.get(record.properties);
        if (isMatch === undefined) {
          isMatch = this.test(predicate, record);
          tested.set(record.properties, isMatch);
        }
        if (isMatch) result.push(this.entryOf(catalog, record));
      }
    }
    return result;
  }

  /** Installed first, then the dependent's own catalog, higher priority, same namespace, name. */
  private compareCatalogs(a: CatalogInfo, b: CatalogInfo, own: CatalogInfo): number {
    if (a.isExisting !== b.isExisting) return a.isExisting ? -1 : 1;
    if ((a === own) !== (b === own)) return a === own ? -1 : 1;
    if (a.priority !== b.priority) return b.priority - a.priority;
    const aLocal = a.ref.namespace === this.input.namespace;
    const bLocal = b.ref.namespace === this.input.namespace;
    if (aLocal !== bLocal) return aLocal ? -1 : 1;
    if (a.ref.name !== b.ref.name) return a.ref.name < b.ref.name ? -1 : 1;
    return a.ref.namespace < b.ref.namespace ? -1 : a.ref.namespace > b.ref.namespace ? 1 : 0;
  }

  // ---- invariants ----------------------------------------------------------------------------

  private *addInvariants(): Steps<void> {
    const providers = new Map<string, { gvk: GroupVersionKind; ids: Set<string> }>();
    const packages = new Map<string, Set<string>>();
    for (const variable of this.variables.values()) {
      if (variable.kind !== 'bundle') continue;
      if (this.pacer.isDue()) yield;
      for (const gvk of providedGvks(variable.entry.record.properties)) {
        const key = gvkKey(gvk);
        let list = providers.get(key);
        if (!list) {
          list = { gvk, ids: new Set() };
          providers.set(key, list);
        }
        list.ids.add(variable.id);
      }
      for (const pkg of packageProperties(variable.entry.record.properties)) {
        let list = packages.get(pkg.name);
        if (!list) {
          list = new Set();
          packages.set(pkg.name, list);
        }
        list.add(variable.id);
      }
    }
    const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    for (const key of [...providers.keys()].sort(byString)) {
      const { gvk, ids: idSet } = providers.get(key)!;
      const id = `${gvk.kind} (${gvk.group}/${gvk.version})`;
      if (idSet.size <= 1 || this.variables.has(id)) continue;
      const ids = [...idSet].sort(byString);
      this.variables.set(id, {
        kind: 'generic',
        id,
        constraints: [
          { kind: 'mandatory', message: `there can be only one provider of ${id}` },
          { kind: 'atMost', n: 1, ids, message: `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]!} provide ${id}` },
        ],
      });
    }
    for (const name of [...packages.keys()].sort(byString)) {
      const idSet = packages.get(name)!;
      if (idSet.size <= 1 || this.variables.has(name)) continue;
      const ids = [...idSet].sort(byString);
      this.variables.set(name, {
        kind: 'generic',
        id: name,
        constraints: [
          { kind: 'mandatory', message: `there can be only one operator from package ${name}` },
          { kind: 'atMost', n: 1, ids, message: `${ids.slice(0, -1).join(', ')} and ${ids[ids.length - 1]!} originate from package ${name}` },
        ],
      });
    }
  }

  // ---- the answer ----------------------------------------------------------------------------

  private describeResult(chosenIds: readonly string[], reasons: ReadonlyMap<string, ChoiceReason>): ResolvedOperator[] {
    const operators: ResolvedOperator[] = [];
    for (const id of chosenIds) {
      const variable = this.variables.get(id);
      if (!variable || variable.kind !== 'bundle') continue;
      const { entry } = variable;
      const record = entry.record;
      if (entry.catalog.isExisting) {
        const linked = entry.subscription;
        operators.push({
          name: record.name,
          package: record.package || (linked?.package ?? ''),
          channel: linked?.channel ?? '',
          version: record.version,
          catalog: linked ? { name: linked.source, namespace: linked.sourceNamespace } : entry.catalog.ref,
          ...(linked ? { subscription: { name: linked.name, isNew: false } } : {}),
          existing: true,
          reason: linked
            ? `installed; subscription ${linked.name} has no acceptable update, so it stays`
            : `installed and not referenced by a subscription, so it stays`,
        });
        continue;
      }
      const subscription = this.subscriptionFor(record, entry.catalog);
      operators.push({
        name: record.name,
        package: record.package,
        channel: record.channel,
        version: record.version,
        catalog: entry.catalog.ref,
        ...(variable.replaces ? { replaces: variable.replaces } : {}),
        subscription,
        existing: false,
        reason: this.reasonFor(variable, reasons.get(variable.id)),
      });
    }
    return operators.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Upstream's step matching: same package, and the same channel and catalog where the subscription names them. */
  private subscriptionFor(record: CatalogEntryRecord, catalog: CatalogInfo): { name: string; isNew: boolean } {
    const match = (this.input.subscriptions ?? []).find(
      (each) =>
        each.package === record.package &&
        (!each.channel || each.channel === record.channel) &&
        (!each.source || (each.source === catalog.ref.name && each.sourceNamespace === catalog.ref.namespace)),
    );
    if (match) return { name: match.name, isNew: false };
    return { name: `${record.package}-${record.channel}-${catalog.ref.name}-${catalog.ref.namespace}`, isNew: true };
  }

  private reasonFor(variable: BundleVariable, reason: ChoiceReason | undefined): string {
    if (!reason || reason.kind === 'anchor' || reason.constraint.kind !== 'dependency') return 'chosen by the solver';
    const total = reason.constraint.ids.length;
    const rank = `option ${reason.option} of ${total}${reason.option === 1 ? ', the most preferred' : ', the more preferred ones conflict with other choices'}`;
    const upgrade = variable.replaces && this.variables.get(reason.by)?.kind === 'generic' ? `; an update of ${variable.replaces}` : '';
    return `${reason.constraint.message ?? reason.by}: ${rank}${upgrade}`;
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

