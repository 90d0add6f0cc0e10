import { describe, expect, it } from 'vitest';
import {
  builtInPropertyTypes,
  bundleObjectPropertyType,
  constraintPropertyType,
  csvMetadataPropertyType,
  maxOpenShiftVersionPropertyType,
  packagePropertyType,
  propertyTypeMap,
} from './property-types.js';

describe('built-in property types', () => {
  it('parse olm.package strictly with Go messages', () => {
    expect(packagePropertyType.parse({ packageName: 'etcd', version: '0.9.4' })).toEqual({ packageName: 'etcd', version: '0.9.4' });
    expect(packagePropertyType.parse({ packageName: 'etcd', version: '1.0.0', release: '2' })).toEqual({ packageName: 'etcd', version: '1.0.0', release: '2' });
    expect(() => packagePropertyType.parse(undefined)).toThrow('unexpected end of JSON input');
    expect(() => packagePropertyType.parse('etcd')).toThrow('json: cannot unmarshal string into Go value of type property.Package');
  });

  it('decode olm.bundle.object data (JSON or YAML) and refuse ref+data', () => {
    const data = Buffer.from('kind: ConfigMap\nmetadata:\n  name: x\n').toString('base64');
    expect(bundleObjectPropertyType.parse({ data })).toEqual({ kind: 'data', manifest: { kind: 'ConfigMap', metadata: { name: 'x' } }, json: '{"kind":"ConfigMap","metadata":{"name":"x"}}' });
    expect(bundleObjectPropertyType.parse({ ref: 'objects/csv.yaml' })).toEqual({ kind: 'ref', ref: 'objects/csv.yaml' });
    expect(() => bundleObjectPropertyType.parse({ ref: 'a', data })).toThrow("fields 'ref' and 'data' are mutually exclusive");
    expect(() => bundleObjectPropertyType.parse({ data: 'a=b' })).toThrow('illegal base64 data at input byte 1');
  });

  it('type-check olm.csv.metadata fields', () => {
    expect(csvMetadataPropertyType.parse({ displayName: 'X', keywords: ['a'] })).toEqual({ displayName: 'X', keywords: ['a'] });
    expect(() => csvMetadataPropertyType.parse({ keywords: 'a' })).toThrow('json: cannot unmarshal string into Go struct field CSVMetadata.keywords of type []string');
    expect(() => csvMetadataPropertyType.parse({ installModes: [{ type: 'OwnNamespace', supported: 'yes' }] })).toThrow(
      'json: cannot unmarshal string into Go struct field InstallMode.installModes.supported of type bool',
    );
  });

  it('keep olm.constraint opaque (any object) and olm.maxOpenShiftVersion a version string', () => {
    expect(constraintPropertyType.parse({ failureMessage: 'x', cel: { rule: 'true' } })).toEqual({ failureMessage: 'x', cel: { rule: 'true' } });
    expect(() => constraintPropertyType.parse([1])).toThrow('olm.constraint value must be a JSON object');
    expect(maxOpenShiftVersionPropertyType.parse('4.19')).toBe('4.19');
    expect(() => maxOpenShiftVersionPropertyType.parse(4.19)).toThrow('json: cannot unmarshal number into Go value of type string');
  });

  it('list every built-in once; extra types override or extend', () => {
    const types = builtInPropertyTypes.map((item) => item.type);
    expect(new Set(types).size).toBe(types.length);
    const custom = { type: 'example.com/tier', parse: (value: unknown) => value };
    const map = propertyTypeMap([custom]);
    expect(map.get('example.com/tier')).toBe(custom);
    expect(map.size).toBe(types.length + 1);
  });
});
