import { describe, expect, it } from 'vitest';
import { parseImageReference } from './image-reference.js';
import { credentialsForImage, keyringFromSecret } from './registry-credentials.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const dockerConfigJson = (auths: Record<string, unknown>, name = 'regcred') => ({
  metadata: { name, namespace: 'olm' },
  type: 'kubernetes.io/dockerconfigjson',
  data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) },
});
const forImage = (secret: ReturnType<typeof dockerConfigJson>, image: string) => credentialsForImage(keyringFromSecret(secret).entries, parseImageReference(image));

describe('pull secrets', () => {
  it('reads username and password from auth, or from the separate fields, and tokens', () => {
    const { entries, problem } = keyringFromSecret(
      dockerConfigJson({
        'registry.example.com': { auth: b64('olm:pa:ss') },
        'quay.io': { username: 'robot', password: 'token' },
        'ghcr.io': { identitytoken: 'refresh-me' },
        'gcr.io': { registrytoken: 'bearer-me' },
        'empty.example.com': { email: 'nobody@example.com' },
      }),
    );
    expect(problem).toBeUndefined();
    expect(entries.map((entry) => [entry.key, entry.credential])).toEqual([
      ['registry.example.com', { source: 'secret olm/regcred', username: 'olm', password: 'pa:ss' }],
      ['quay.io', { source: 'secret olm/regcred', username: 'robot', password: 'token' }],
      ['ghcr.io', { source: 'secret olm/regcred', identityToken: 'refresh-me' }],
      ['gcr.io', { source: 'secret olm/regcred', registryToken: 'bearer-me' }],
    ]);
  });

  it('reads the legacy dockercfg format', () => {
    const secret = { metadata: { name: 'old', namespace: 'olm' }, type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64(JSON.stringify({ 'https://quay.io': { auth: b64('a:b') } })) } };
    expect(credentialsForImage(keyringFromSecret(secret).entries, parseImageReference('quay.io/acme/bundle:v1'))).toEqual([{ source: 'secret olm/old', username: 'a', password: 'b' }]);
  });

  it('says why a secret holds no credentials', () => {
    expect(keyringFromSecret({ metadata: { name: 'opaque', namespace: 'olm' }, type: 'Opaque', data: {} }).problem).toBe(
      'secret olm/opaque has type "Opaque", not kubernetes.io/dockerconfigjson or kubernetes.io/dockercfg: it holds no registry credentials',
    );
    expect(keyringFromSecret({ metadata: { name: 'bad', namespace: 'olm' }, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{not json') } }).problem).toMatch(
      /^secret olm\/bad: \.dockerconfigjson is not a Docker config \(.*\); recreate it with kubectl create secret docker-registry$/,
    );
    expect(keyringFromSecret({ metadata: { name: 'none', namespace: 'olm' }, type: 'kubernetes.io/dockerconfigjson' }).problem).toBe('secret olm/none has no .dockerconfigjson key');
  });

  it('matches registries as the kubelet does: host, port, path prefix, globs, Docker Hub aliases', () => {
    const secret = dockerConfigJson({
      'https://index.docker.io/v1/': { auth: b64('hub:1') },
      'registry.example.com:5000': { auth: b64('port:1') },
      'registry.example.com/team': { auth: b64('team:1') },
      'registry.example.com': { auth: b64('host:1') },
      '*.example.org': { auth: b64('glob:1') },
    });
    const users = (image: string) => forImage(secret, image).map((credential) => credential.username);
    expect(users('acme/bundle:v1')).toEqual(['hub']);
    expect(users('docker.io/library/busybox')).toEqual(['hub']);
    expect(users('registry.example.com:5000/acme/bundle:v1')).toEqual(['port']);
    // the more specific path first, then the host
    expect(users('registry.example.com/team/bundle:v1')).toEqual(['team', 'host']);
    expect(users('registry.example.com/teams/bundle:v1')).toEqual(['host']);
    expect(users('a.example.org/bundle:v1')).toEqual(['glob']);
    expect(users('a.b.example.org/bundle:v1')).toEqual([]);
    expect(users('quay.io/acme/bundle:v1')).toEqual([]);
  });
});
