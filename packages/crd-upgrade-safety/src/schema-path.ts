/**
 * A field path in crdify's "simple location" form (`^.spec.items.additionalProperties.allOf[0]`),
 * kept as a chain of segments and spelled out only for a violation, so walking a schema with long
 * property names at every level costs memory linear in the schema, not in depth × names.
 */
export class SchemaPath {
  static readonly root = new SchemaPath(undefined, '^');

  private constructor(
    private readonly parent: SchemaPath | undefined,
    private readonly segment: string,
  ) {}

  /** A property, `items`, `not`, `additionalProperties`: `.name` (upstream's `field.Path.Child`). */
  child(name: string): SchemaPath {
    return new SchemaPath(this, `.${name}`);
  }

  /** The i-th schema of `allOf`, `anyOf` or `oneOf`: `.allOf[i]` (upstream's `Child(…).Index(i)`). */
  indexed(name: string, index: number): SchemaPath {
    return new SchemaPath(this, `.${name}[${index}]`);
  }

  toString(): string {
    const segments: string[] = [];
    for (let path: SchemaPath | undefined = this; path; path = path.parent) segments.push(path.segment);
    return segments.reverse().join('');
  }
}
