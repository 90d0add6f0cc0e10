import type { JSONSchemaProps } from '@olm/structural-schema';
import { describe, expect, it } from 'vitest';
import type { CrdVersion, CrdView } from './crd-view.js';
import { SchemaDiffBudget } from './limits.js';
import { checkCrdSchemaUpgrade } from './schema-upgrade-check.js';
import { formatCrdSchemaViolations } from './violations.js';

const version = (name: string, spec: JSONSchemaProps, extra: Partial<CrdVersion> = {}): CrdVersion => ({
  name,
  served: true,
  storage: name === 'v1',
  schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
  ...extra,
});

const crd = (versions: CrdVersion[], extra: { scope?: string; storedVersions?: string[]; conversion?: string } = {}): CrdView => ({
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: extra.scope ?? 'Namespaced',
    versions,
    ...(extra.conversion ? { conversion: { strategy: extra.conversion } } : {}),
  },
  status: { storedVersions: extra.storedVersions ?? ['v1'] },
});

/** The old and new CRD with one version v1 whose `spec` schema is given. */
const messages = (oldSpec: JSONSchemaProps, newSpec: JSONSchemaProps): string[] =>
  checkCrdSchemaUpgrade(crd([version('v1', oldSpec)]), crd([version('v1', newSpec)])).violations.map((violation) => violation.message);

const prefix = 'validating upgrade for CRD "widgets.example.com": ';
const object = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'object', properties, ...extra });

describe('CRD-wide rules', () => {
  it('scope: refuses a changed scope', () => {
    const spec = object({});
    const check = checkCrdSchemaUpgrade(crd([version('v1', spec)]), crd([version('v1', spec)], { scope: 'Cluster' }));
    expect(check.violations).toEqual([
      {
        crd: 'widgets.example.com',
        rule: 'scope',
        detail: 'scope changed from "Namespaced" to "Cluster"',
        message: `${prefix}scope: scope changed from "Namespaced" to "Cluster"`,
      },
    ]);
    expect(checkCrdSchemaUpgrade(crd([version('v1', spec)]), crd([version('v1', spec)])).violations).toEqual([]);
  });

  it('storedVersionRemoval: refuses removing versions listed in status.storedVersions, not others', () => {
    const spec = object({});
    const old = crd([version('v1alpha1', spec, { storage: false }), version('v1beta1', spec, { storage: false }), version('v1', spec)], {
      storedVersions: ['v1alpha1', 'v1beta1', 'v1'],
    });
    const check = checkCrdSchemaUpgrade(old, crd([version('v1', spec)]));
    expect(check.violations.map((violation) => violation.message)).toEqual([`${prefix}storedVersionRemoval: stored versions [v1alpha1 v1beta1] removed`]);
    const neverStored = crd([version('v1alpha1', spec, { storage: false }), version('v1', spec)]);
    expect(checkCrdSchemaUpgrade(neverStored, crd([version('v1', spec)])).violations).toEqual([]);
  });

  it('existingFieldRemoval: refuses removing a field (and its sub-fields), allows adding one', () => {
    const old = object({ size: { type: 'integer' }, owner: object({ name: { type: 'string' } }) });
    const check = checkCrdSchemaUpgrade(crd([version('v1', old)]), crd([version('v1', object({ size: { type: 'integer' } }))]));
    const removals = check.violations.filter((violation) => violation.rule === 'existingFieldRemoval');
    expect(removals.map((violation) => violation.message)).toEqual([
      `${prefix}existingFieldRemoval: crd/widgets.example.com version/v1 field/^.spec.owner may not be removed`,
      `${prefix}existingFieldRemoval: crd/widgets.example.com version/v1 field/^.spec.owner.name may not be removed`,
    ]);
    expect(removals[0]).toMatchObject({ version: 'v1', field: '^.spec.owner' });
    expect(messages(object({ size: { type: 'integer' } }), object({ size: { type: 'integer' }, color: { type: 'string' } }))).toEqual([]);
  });

  it('reports a removed field as upstream does: removal first, then what the property lost', () => {
    expect(messages(object({ size: { type: 'integer', default: 1 } }), object({}))).toEqual([
      `${prefix}existingFieldRemoval: crd/widgets.example.com version/v1 field/^.spec.size may not be removed`,
      `${prefix}v1: ^.spec.size: type: type changed : "integer" -> ""`,
      `${prefix}v1: ^.spec.size: default: default value removed : "1"`,
    ]);
  });
});

describe('property rules', () => {
  it('type: refuses a changed type', () => {
    expect(messages(object({ size: { type: 'integer' } }), object({ size: { type: 'string' } }))).toEqual([
      `${prefix}v1: ^.spec.size: type: type changed : "integer" -> "string"`,
    ]);
  });

  it('enum: refuses an enum on a field that had none and removed values; adding values is fine', () => {
    expect(messages(object({ tier: { type: 'string' } }), object({ tier: { type: 'string', enum: ['gold', 'bronze'] } }))).toEqual([
      `${prefix}v1: ^.spec.tier: enum: enum constraint added when there was none previously : ["bronze" "gold"]`,
    ]);
    expect(messages(object({ tier: { type: 'string', enum: ['gold', 'silver', 'bronze'] } }), object({ tier: { type: 'string', enum: ['gold'] } }))).toEqual([
      `${prefix}v1: ^.spec.tier: enum: allowed enum values removed : ["bronze" "silver"]`,
    ]);
    expect(messages(object({ tier: { type: 'string', enum: ['gold'] } }), object({ tier: { type: 'string', enum: ['gold', 'silver'] } }))).toEqual([]);
    // Dropping the whole enum loosens the field, yet upstream counts its values as removed: so do we.
    expect(messages(object({ tier: { type: 'string', enum: ['gold'] } }), object({ tier: { type: 'string' } }))).toEqual([
      `${prefix}v1: ^.spec.tier: enum: allowed enum values removed : ["gold"]`,
    ]);
  });

  it('required: refuses a newly required field; dropping a requirement is fine', () => {
    const fields = { size: { type: 'integer' }, color: { type: 'string' } };
    expect(messages(object(fields, { required: ['size'] }), object(fields, { required: ['size', 'color'] }))).toEqual([
      `${prefix}v1: ^.spec: required: new required fields: [color]`,
    ]);
    expect(messages(object(fields, { required: ['size'] }), object(fields))).toEqual([]);
  });

  it('default: refuses an added, changed or removed default', () => {
    expect(messages(object({ size: { type: 'integer' } }), object({ size: { type: 'integer', default: 3 } }))).toEqual([
      `${prefix}v1: ^.spec.size: default: default added when there was none previously : "3"`,
    ]);
    expect(messages(object({ mode: { type: 'string', default: 'fast' } }), object({ mode: { type: 'string', default: 'safe' } }))).toEqual([
      `${prefix}v1: ^.spec.mode: default: default value changed : "\\"fast\\"" -> "\\"safe\\""`,
    ]);
    expect(messages(object({ size: { type: 'integer', default: 3 } }), object({ size: { type: 'integer' } }))).toEqual([
      `${prefix}v1: ^.spec.size: default: default value removed : "3"`,
    ]);
    // Object defaults compare as Go's JSON: keys sorted, so their order does not matter.
    expect(messages(object({ o: { type: 'object', default: { a: 1, b: 2 } } }), object({ o: { type: 'object', default: { b: 2, a: 1 } } }))).toEqual([]);
  });

  const upperBounds = [
    ['maximum', 'integer'],
    ['maxItems', 'array'],
    ['maxLength', 'string'],
    ['maxProperties', 'object'],
  ] as const;
  it.each(upperBounds)('%s: refuses an added or lowered bound; raising it is fine', (keyword, type) => {
    expect(messages(object({ f: { type } }), object({ f: { type, [keyword]: 10 } }))).toEqual([
      `${prefix}v1: ^.spec.f: ${keyword}: maximum constraint added when there was none previously : 10`,
    ]);
    expect(messages(object({ f: { type, [keyword]: 10 } }), object({ f: { type, [keyword]: 5 } }))).toEqual([
      `${prefix}v1: ^.spec.f: ${keyword}: maximum decreased : 10 -> 5`,
    ]);
    expect(messages(object({ f: { type, [keyword]: 10 } }), object({ f: { type, [keyword]: 20 } }))).toEqual([]);
    expect(messages(object({ f: { type, [keyword]: 10 } }), object({ f: { type } }))).toEqual([]);
  });

  const lowerBounds = [
    ['minimum', 'integer'],
    ['minItems', 'array'],
    ['minLength', 'string'],
    ['minProperties', 'object'],
  ] as const;
  it.each(lowerBounds)('%s: refuses an added or raised bound; lowering it is fine', (keyword, type) => {
    expect(messages(object({ f: { type } }), object({ f: { type, [keyword]: 2 } }))).toEqual([
      `${prefix}v1: ^.spec.f: ${keyword}: minimum constraint added when there was none previously : 2`,
    ]);
    expect(messages(object({ f: { type, [keyword]: 2 } }), object({ f: { type, [keyword]: 3 } }))).toEqual([
      `${prefix}v1: ^.spec.f: ${keyword}: minimum increased : 2 -> 3`,
    ]);
    expect(messages(object({ f: { type, [keyword]: 2 } }), object({ f: { type, [keyword]: 1 } }))).toEqual([]);
    expect(messages(object({ f: { type, [keyword]: 2 } }), object({ f: { type } }))).toEqual([]);
  });

  it("prints minimum and maximum as Go prints a float64", () => {
    expect(messages(object({ f: { type: 'number', maximum: 1e21 } }), object({ f: { type: 'number', maximum: 2.5e6 } }))).toEqual([
      `${prefix}v1: ^.spec.f: maximum: maximum decreased : 1e+21 -> 2.5e+06`,
    ]);
  });

  it('allows changes no rule covers: descriptions, titles, examples, new optional fields', () => {
    const old = object({ size: { type: 'integer', description: 'How big.' } }, { description: 'The spec.' });
    const next = object({ size: { type: 'integer', description: 'How big, in units.', example: 3 }, note: { type: 'string' } }, { description: 'Desired state.', title: 'Spec' });
    expect(messages(old, next)).toEqual([]);
  });
});

describe('paths and several violations', () => {
  it('names fields inside arrays, maps and allOf/anyOf/oneOf as upstream does', () => {
    const old = object({
      ports: { type: 'array', items: object({ number: { type: 'integer', maximum: 65535 } }) },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 } },
      choice: { allOf: [{ type: 'object', minProperties: 1 }], oneOf: [{ required: [] }, { required: ['a'] }] },
    });
    const next = object({
      ports: { type: 'array', items: object({ number: { type: 'integer', maximum: 1024 } }) },
      labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 32 } },
      choice: { allOf: [{ type: 'object', minProperties: 2 }], oneOf: [{ required: ['b'] }, { required: ['a'] }] },
    });
    expect(messages(old, next)).toEqual([
      `${prefix}v1: ^.spec.ports.items.number: maximum: maximum decreased : 65535 -> 1024`,
      `${prefix}v1: ^.spec.labels.additionalProperties: maxLength: maximum decreased : 63 -> 32`,
      `${prefix}v1: ^.spec.choice.allOf[0]: minProperties: minimum increased : 1 -> 2`,
      `${prefix}v1: ^.spec.choice.oneOf[0]: required: new required fields: [b]`,
    ]);
  });

  it('reports every violation, CRD-wide ones first, and formats them as one condition message', () => {
    const old = crd([version('v1alpha1', object({}), { served: false }), version('v1', object({ size: { type: 'integer' }, mode: { type: 'string', enum: ['a', 'b'] } }))], {
      storedVersions: ['v1alpha1', 'v1'],
    });
    const next = crd([version('v1', object({ size: { type: 'string' }, mode: { type: 'string', enum: ['a'] } }))], { scope: 'Cluster' });
    const check = checkCrdSchemaUpgrade(old, next);
    expect(check.violations.map((violation) => violation.rule)).toEqual(['scope', 'storedVersionRemoval', 'type', 'enum']);
    expect(formatCrdSchemaViolations(check)).toBe(
      [
        `${prefix}scope: scope changed from "Namespaced" to "Cluster"`,
        'storedVersionRemoval: stored versions [v1alpha1] removed',
        'v1: ^.spec.size: type: type changed : "integer" -> "string"',
        'v1: ^.spec.mode: enum: allowed enum values removed : ["b"]',
      ].join('\n'),
    );
    expect(formatCrdSchemaViolations(checkCrdSchemaUpgrade(old, old))).toBeUndefined();
  });

  it('formats the checks of several CRDs one after the other', () => {
    const other: CrdView = { ...crd([version('v1', object({}))]), metadata: { name: 'gadgets.example.com' } };
    const otherNext: CrdView = { ...other, spec: { ...other.spec, scope: 'Cluster' } };
    const widgets = checkCrdSchemaUpgrade(crd([version('v1', object({ a: { type: 'string' } }))]), crd([version('v1', object({ a: { type: 'integer' } }))]));
    expect(formatCrdSchemaViolations([widgets, checkCrdSchemaUpgrade(other, otherNext)])).toBe(
      `${prefix}v1: ^.spec.a: type: type changed : "string" -> "integer"\n` +
        'validating upgrade for CRD "gadgets.example.com": scope: scope changed from "Namespaced" to "Cluster"',
    );
  });
});

describe('served versions', () => {
  const v1 = version('v1', object({ flag: { type: 'boolean' } }));
  it('compares each served version with every later one, by Kubernetes version priority', () => {
    const v2 = version('v2', object({ flag: { type: 'string' } }), { storage: false });
    const v1beta1 = version('v1beta1', object({ flag: { type: 'boolean' } }), { storage: false });
    const next = crd([v2, v1, v1beta1]);
    expect(checkCrdSchemaUpgrade(crd([v1]), next).violations.map((violation) => violation.message)).toEqual([
      `${prefix}v1beta1 -> v2: ^.spec.flag: type: type changed : "boolean" -> "string"`,
      `${prefix}v1 -> v2: ^.spec.flag: type: type changed : "boolean" -> "string"`,
    ]);
  });

  it('skips them with a conversion webhook, or when the version is not served', () => {
    const v2 = version('v2', object({ flag: { type: 'string' } }), { storage: false });
    expect(checkCrdSchemaUpgrade(crd([v1]), crd([v1, v2], { conversion: 'Webhook' })).violations).toEqual([]);
    expect(checkCrdSchemaUpgrade(crd([v1]), crd([v1, { ...v2, served: false }])).violations).toEqual([]);
  });

  it('does not report again what the old CRD already had, only what is new', () => {
    const v2 = version('v2', object({ flag: { type: 'string' } }), { storage: false });
    const v2Worse = version('v2', object({ flag: { type: 'string' }, extra: { type: 'string', minLength: 1 } }), { storage: false });
    const v1Extra = version('v1', object({ flag: { type: 'boolean' }, extra: { type: 'string' } }));
    expect(checkCrdSchemaUpgrade(crd([v1Extra, v2]), crd([v1Extra, v2])).violations).toEqual([]);
    expect(checkCrdSchemaUpgrade(crd([v1Extra, v2]), crd([v1Extra, v2Worse])).violations.map((violation) => violation.message)).toEqual([
      `${prefix}v1 -> v2: ^.spec.extra: minLength: minimum constraint added when there was none previously : 1`,
    ]);
  });
});

describe('limits (CRDs are untrusted input)', () => {
  const nested = (depth: number): JSONSchemaProps => {
    let schema: JSONSchemaProps = { type: 'string' };
    for (let level = 0; level < depth; level += 1) schema = object({ a: schema });
    return schema;
  };

  it('refuses a schema nested past maxDepth, naming the CRD, version, field, limit and option', () => {
    const deep = nested(10_000);
    expect(() => checkCrdSchemaUpgrade(crd([version('v1', deep)]), crd([version('v1', deep)]))).toThrow(
      expect.objectContaining({
        code: 'OLM_CRD_SCHEMA_TOO_LARGE',
        message: expect.stringMatching(
          /^CRD "widgets\.example\.com" version v1, field \^\.spec(\.a){64}: schema nested deeper than 64 levels, too deep to check upgrade safety \(limit maxDepth; raise it with the limits\.maxDepth option of checkCrdSchemaUpgrade\)$/,
        ),
      }),
    );
    expect(checkCrdSchemaUpgrade(crd([version('v1', nested(60))]), crd([version('v1', nested(60))])).violations).toEqual([]);
  });

  it('refuses a schema with more nodes than maxNodes, and counts many versions together', () => {
    const wide = object(Object.fromEntries(Array.from({ length: 2_000 }, (_, index) => [`f${index}`, { type: 'string' }])));
    const versions = ['v1', 'v2', 'v3'].map((name) => version(name, wide));
    expect(() => checkCrdSchemaUpgrade(crd([versions[0]!]), crd([versions[0]!]), { limits: { maxNodes: 5_000 } })).not.toThrow();
    expect(() => checkCrdSchemaUpgrade(crd(versions), crd(versions), { limits: { maxNodes: 5_000 } })).toThrow(
      /^CRD "widgets\.example\.com" version v3, field \^\.spec\.f\d+: schemas too large to check upgrade safety: more than 5000 schema nodes compared \(limit maxNodes; raise it with the limits\.maxNodes option of checkCrdSchemaUpgrade\)$/,
    );
  });

  it('holds one budget across the CRDs of a bundle', () => {
    const wide = object(Object.fromEntries(Array.from({ length: 2_000 }, (_, index) => [`f${index}`, { type: 'string' }])));
    const budget = new SchemaDiffBudget({ maxNodes: 5_000 });
    const one = crd([version('v1', wide)]);
    checkCrdSchemaUpgrade(one, one, { budget });
    checkCrdSchemaUpgrade(one, one, { budget });
    expect(() => checkCrdSchemaUpgrade(one, one, { budget })).toThrow(/more than 5000 schema nodes compared \(limit maxNodes; raise it with the limits\.maxNodes option/);
  });

  it('refuses an enum value or default nested past the limits instead of overflowing the stack', () => {
    let value: unknown = 'x';
    for (let level = 0; level < 100_000; level += 1) value = [value];
    expect(() => messages(object({ f: { type: 'array', default: value } }), object({ f: { type: 'array' } }))).toThrow(
      'CRD "widgets.example.com" version v1: an enum value or default is larger than 1000000 JSON nodes or nested deeper than 64 levels (limits maxNodes, maxDepth; raise them with the limits option of checkCrdSchemaUpgrade)',
    );
  });

  it('keeps violations up to maxReportCharacters and counts the rest', () => {
    const fields = Object.fromEntries(Array.from({ length: 5_000 }, (_, index) => [`field${index}`, { type: 'string' } as JSONSchemaProps]));
    const check = checkCrdSchemaUpgrade(crd([version('v1', object(fields))]), crd([version('v1', object({}))]));
    expect(check.violations.length).toBeGreaterThan(10);
    expect(check.violations.length + check.omittedViolations).toBe(10_000);
    const message = formatCrdSchemaViolations(check)!;
    expect(message.length).toBeLessThanOrEqual(32_768 + 100);
    expect(message).toMatch(new RegExp(`\\n… and ${check.omittedViolations} more violations not shown$`));
  });

  it('cuts a single violation whose field path alone is longer than the report', () => {
    const long = 'n'.repeat(40_000);
    const check = checkCrdSchemaUpgrade(crd([version('v1', object({ [long]: { type: 'string' } }))]), crd([version('v1', object({ [long]: { type: 'integer' } }))]));
    expect(check.violations).toHaveLength(1);
    expect(check.violations[0]!.message).toHaveLength(32_769);
    expect(check.omittedViolations).toBe(0);
  });
});
