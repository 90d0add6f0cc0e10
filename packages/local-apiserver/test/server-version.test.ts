import { describe, expect, it } from 'vitest';
import { startApiServer, versionInfo } from '../src/index.js';
import { call } from './helpers.js';

describe('the reported Kubernetes version', () => {
  it('is v1.32.4 by default and the kubernetesVersion option otherwise, on /version and in OpenAPI', async () => {
    const server = await startApiServer({ port: 0, kubernetesVersion: 'v1.28.3+k3s1' });
    try {
      const version = await call(server, 'GET', '/version');
      expect(version.body).toMatchObject({ major: '1', minor: '28', gitVersion: 'v1.28.3+k3s1', compiler: 'gc', platform: 'linux/amd64' });
      expect(Object.keys(version.body)).toEqual(['major', 'minor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform']);
      expect((await call(server, 'GET', '/openapi/v2')).body.info).toEqual({ title: 'Kubernetes', version: 'v1.28.3+k3s1' });
    } finally {
      await server.stop();
    }
    expect(versionInfo()).toMatchObject({ major: '1', minor: '32', gitVersion: 'v1.32.4' });
  });

  it.each(['1.28.3', 'v1.28', 'v1.28.3.4', 'latest', ''])('refuses %j before starting, saying how to write it', async (text) => {
    await expect(startApiServer({ port: 0, kubernetesVersion: text })).rejects.toThrow(
      `kubernetesVersion ${JSON.stringify(text)} is not a Kubernetes version: write it as its release tag, v<major>.<minor>.<patch> (for example v1.28.3)`,
    );
  });
});
