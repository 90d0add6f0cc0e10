import type { CatalogObject } from './catalog-objects.js';

/** Where one FBC object lies in `catalog.jsonl`. */
export interface Section {
  readonly offset: number;
  readonly length: number;
}

/** The `/api/v1/metas` filters; '' means "any". */
export interface MetasQuery {
  readonly schema: string;
  readonly package: string;
  readonly name: string;
}

type SectionMap = ReadonlyMap<string, readonly Section[]>;

/**
 * Byte sections of a catalog by schema, package and name, each list in file order. A query
 * intersects the lists of the filters it sets, as catalogd's index does, so the answer is the
 * matching objects in file order.
 */
export class CatalogIndex {
  constructor(
    readonly bySchema: SectionMap,
    readonly byPackage: SectionMap,
    readonly byName: SectionMap,
  ) {}

  sections(query: MetasQuery): Section[] {
    const lists: (readonly Section[])[] = [];
    if (query.schema !== '') lists.push(this.bySchema.get(query.schema) ?? []);
    if (query.package !== '') lists.push(this.byPackage.get(query.package) ?? []);
    if (query.name !== '') lists.push(this.byName.get(query.name) ?? []);
    if (lists.length === 0) return [...this.bySchema.values()].flat().sort((a, b) => a.offset - b.offset);
    lists.sort((a, b) => a.length - b.length);
    const [smallest, ...others] = lists;
    const offsetSets = others.map((list) => new Set(list.map((section) => section.offset)));
    return (smallest ?? []).filter((section) => offsetSets.every((offsets) => offsets.has(section.offset)));
  }
}

export class CatalogIndexBuilder {
  readonly #bySchema = new Map<string, Section[]>();
  readonly #byPackage = new Map<string, Section[]>();
  readonly #byName = new Map<string, Section[]>();

  add(object: Omit<CatalogObject, 'line'>, section: Section): void {
    // Empty keys are not indexed (catalogd does the same): `?name=` means "any name".
    if (object.schema !== '') append(this.#bySchema, object.schema, section);
    if (object.package !== '') append(this.#byPackage, object.package, section);
    if (object.name !== '') append(this.#byName, object.name, section);
  }

  /** catalogd's `index.json`: `{"by_schema":{"olm.bundle":[[offset,length],…]},"by_package":…,"by_name":…}`. */
  toJson(): string {
    const encode = (map: Map<string, Section[]>): Record<string, [number, number][]> =>
      Object.fromEntries([...map].map(([key, sections]) => [key, sections.map((section): [number, number] => [section.offset, section.length])]));
    return `${JSON.stringify({ by_schema: encode(this.#bySchema), by_package: encode(this.#byPackage), by_name: encode(this.#byName) })}\n`;
  }
}

function append(map: Map<string, Section[]>, key: string, section: Section): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [section]);
  else list.push(section);
}

/** Reads `index.json`, checking every section lies inside a file of `size` bytes. */
export function parseCatalogIndex(text: string, size: number): CatalogIndex {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  const decode = (field: string): SectionMap => {
    const value = parsed[field];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${field} is not an object`);
    const map = new Map<string, Section[]>();
    for (const [key, list] of Object.entries(value)) {
      if (!Array.isArray(list)) throw new Error(`${field}[${JSON.stringify(key)}] is not a list`);
      map.set(
        key,
        list.map((pair: unknown) => {
          const [offset, length] = Array.isArray(pair) ? (pair as unknown[]) : [];
          if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || (offset as number) < 0 || (length as number) <= 0 || (offset as number) + (length as number) > size) {
            throw new Error(`${field}[${JSON.stringify(key)}] has a section outside the ${size}-byte catalog: ${JSON.stringify(pair)}`);
          }
          return { offset: offset as number, length: length as number };
        }),
      );
    }
    return map;
  };
  return new CatalogIndex(decode('by_schema'), decode('by_package'), decode('by_name'));
}
