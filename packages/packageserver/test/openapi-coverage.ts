/** Paths of `value`'s fields that `schema` (an OpenAPI v3 schema, `$ref`s into `schemas`) does not describe. */
export function undocumentedFields(value: unknown, schema: unknown, schemas: Record<string, unknown>, path = ''): string[] {
  const resolve = (candidate: any): any => (candidate?.allOf ? resolve(schemas[String(candidate.allOf[0].$ref).split('/').pop()!]) : candidate);
  const resolved = resolve(schema);
  if (resolved === undefined) return [path];
  if (resolved['x-kubernetes-preserve-unknown-fields'] || resolved.additionalProperties) return [];
  if (Array.isArray(value)) return value.flatMap((item, position) => undocumentedFields(item, resolved.items, schemas, `${path}[${position}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, field]) =>
    resolved.properties?.[key] ? undocumentedFields(field, resolved.properties[key], schemas, `${path}.${key}`) : [`${path}.${key}`],
  );
}
