import { describe, expect, it } from 'vitest';
import { goJson } from '@olm/go-format';
import { permissionStruct, policyRulesValue, roleRefStruct, subjectStruct } from './go-json.js';

const goJsonString = (value: string): string => goJson(value);

describe('goJsonString', () => {
  it('escapes like Go encoding/json (HTML-safe, line separators, control characters)', () => {
    expect(goJsonString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goJsonString('<a&b>')).toBe('"\\u003ca\\u0026b\\u003e"');
    expect(goJsonString('x\u2028y\u2029')).toBe('"x\\u2028y\\u2029"');
    expect(goJsonString('\n\r\t\u0001')).toBe('"\\n\\r\\t\\u0001"');
    expect(goJsonString('é😀')).toBe('"é😀"');
    expect(goJsonString('\ud800x')).toBe('"\ufffdx"');
  });

  it('writes strings with nothing to escape as JSON.stringify does, and escapes any one character anywhere', () => {
    for (const plain of ['', 'pods', 'apps', 'rbac.authorization.k8s.io', '*', 'é😀 ~/', 'x'.repeat(300)]) {
      expect(goJsonString(plain)).toBe(JSON.stringify(plain));
    }
    for (const special of ['"', '\\', '<', '>', '&', '\u2028', '\u2029', '\u0000', '\u001f', '\udc00']) {
      const escaped = goJsonString(special);
      expect(escaped).not.toBe(`"${special}"`);
      expect(goJsonString(`pods${special}`)).toBe(`"pods${escaped.slice(1, -1)}"`);
      expect(goJsonString(`${special}pods`)).toBe(`"${escaped.slice(1, -1)}pods"`);
    }
  });
});

describe('Go struct encodings', () => {
  it('writes PolicyRule fields in declaration order and omits empty optional lists', () => {
    expect(goJson(policyRulesValue([{ verbs: ['get'], resources: ['pods'], apiGroups: [''], resourceNames: [] }]))).toBe(
      '[{"verbs":["get"],"apiGroups":[""],"resources":["pods"]}]',
    );
    expect(goJson(policyRulesValue([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]))).toBe('[{"verbs":["get"],"nonResourceURLs":["/healthz"]}]');
    expect(goJson(policyRulesValue(undefined))).toBe('null');
  });

  it('writes permissions, role refs and subjects as upstream structs', () => {
    expect(goJson(permissionStruct('sa', undefined))).toBe('{"serviceAccountName":"sa","rules":null}');
    expect(goJson(roleRefStruct({ name: 'r', kind: 'Role', apiGroup: 'rbac.authorization.k8s.io' }))).toBe(
      '{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}',
    );
    expect(goJson(subjectStruct({ kind: 'ServiceAccount', name: 'sa', namespace: 'ns', apiGroup: '' }))).toBe(
      '{"kind":"ServiceAccount","name":"sa","namespace":"ns"}',
    );
    expect(goJson(['a', 1, true, null])).toBe('["a",1,true,null]');
  });
});
