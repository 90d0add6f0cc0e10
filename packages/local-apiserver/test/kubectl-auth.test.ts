import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiServer } from '../src/index.js';
import { startTestServer } from './helpers.js';
import { kubectl, kubectlMinorVersion, runKubectl, type KubectlResult } from './kubectl-client.js';

const minor = kubectlMinorVersion();
const available = minor !== undefined;
if (!available) console.warn(`kubectl auth tests skipped: "${kubectl} version --client" failed (set KUBECTL to a kubectl binary)`);
const robot = 'system:serviceaccount:team:robot';

// kubectl sends credentials only over HTTPS (client-go drops them for http:// servers), so these
// tests serve TLS, as `olm up` does.
describe.skipIf(!available)(`kubectl ${available ? `1.${minor}` : '(missing)'}: authentication and authorization`, () => {
  let server: ApiServer;
  let workDir: string;
  let env: NodeJS.ProcessEnv;
  let token = '';
  const run = (args: string[]): Promise<KubectlResult> => runKubectl(args, { env, cwd: workDir });
  const asRobot = (args: string[]): Promise<KubectlResult> => run([...args, `--token=${token}`]);

  beforeAll(async () => {
    server = await startTestServer({ tls: true });
    workDir = mkdtempSync(join(tmpdir(), 'olm-kubectl-auth-'));
    env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: join(workDir, 'cache'), HOME: workDir };
    expect((await run(['create', 'namespace', 'team'])).code).toBe(0);
    expect((await run(['create', 'serviceaccount', 'robot', '-n', 'team'])).code).toBe(0);
  });
  afterAll(async () => {
    await server?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('create token: a bound token for a ServiceAccount, refused below ten minutes', async () => {
    const created = await run(['create', 'token', 'robot', '-n', 'team']);
    expect(created.stderr).toBe('');
    token = created.stdout.trim();
    expect(token.split('.')).toHaveLength(3);
    const short = await run(['create', 'token', 'robot', '-n', 'team', '--duration=1m']);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain('TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
  });

  it.skipIf((minor ?? 0) < 28)('auth whoami: the admin and the ServiceAccount', async () => {
    const adminSelf = await run(['auth', 'whoami', '-o', 'json']);
    expect(JSON.parse(adminSelf.stdout).status.userInfo).toEqual({ username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
    const robotSelf = await asRobot(['auth', 'whoami']);
    expect(robotSelf.stdout).toMatch(new RegExp(`^Username\\s+${robot}$`, 'm'));
    expect(robotSelf.stdout).toMatch(/^Groups\s+\[system:serviceaccounts system:serviceaccounts:team system:authenticated\]$/m);
  });

  it('a forbidden get, then allowed once a RoleBinding grants it', async () => {
    const forbidden = await asRobot(['get', 'configmaps', '-n', 'team']);
    expect(forbidden.code).not.toBe(0);
    expect(forbidden.stderr.trim()).toBe(`Error from server (Forbidden): configmaps is forbidden: User "${robot}" cannot list resource "configmaps" in API group "" in the namespace "team"`);
    expect((await run(['create', 'role', 'config-reader', '-n', 'team', '--verb=get,list,watch', '--resource=configmaps'])).code).toBe(0);
    expect((await run(['create', 'rolebinding', 'robot-reads', '-n', 'team', '--role=config-reader', `--serviceaccount=team:robot`])).code).toBe(0);
    const allowed = await asRobot(['get', 'configmaps', '-n', 'team']);
    expect(allowed.stderr).toBe('No resources found in team namespace.\n');
    expect(allowed.code).toBe(0);
  });

  it('auth can-i, as the admin, as the ServiceAccount, and impersonating it with --as', async () => {
    expect((await run(['auth', 'can-i', 'delete', 'namespaces'])).stdout.trim()).toBe('yes');
    const yes = await asRobot(['auth', 'can-i', 'list', 'configmaps', '-n', 'team']);
    expect([yes.code, yes.stdout.trim()]).toEqual([0, 'yes']);
    const no = await asRobot(['auth', 'can-i', 'delete', 'configmaps', '-n', 'team']);
    expect([no.code, no.stdout.trim()]).toEqual([1, 'no']);
    expect((await run(['auth', 'can-i', 'list', 'configmaps', '-n', 'team', `--as=${robot}`])).stdout.trim()).toBe('yes');
    expect((await run(['auth', 'can-i', 'list', 'configmaps', '-n', 'default', `--as=${robot}`])).stdout.trim()).toBe('no');
  });

  it('--as-group: a ClusterRoleBinding to a group', async () => {
    expect((await run(['create', 'clusterrole', 'namespace-reader', '--verb=get,list', '--resource=namespaces'])).code).toBe(0);
    expect((await run(['create', 'clusterrolebinding', 'developers-read-namespaces', '--clusterrole=namespace-reader', '--group=developers'])).code).toBe(0);
    expect((await run(['auth', 'can-i', 'list', 'namespaces', '--as=dana'])).stdout.trim()).toBe('no');
    expect((await run(['auth', 'can-i', 'list', 'namespaces', '--as=dana', '--as-group=developers'])).stdout.trim()).toBe('yes');
    const listed = await run(['get', 'namespaces', '--as=dana', '--as-group=developers', '-o', 'name']);
    expect(listed.stdout).toContain('namespace/team');
  });

  it('auth can-i --list: the rules of a namespace', async () => {
    const list = await asRobot(['auth', 'can-i', '--list', '-n', 'team']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^configmaps\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    expect(list.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(list.stdout).toMatch(/^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
  });

  it('refuses impersonation to a user without the impersonate verb', async () => {
    const refused = await asRobot(['get', 'configmaps', '-n', 'team', '--as=alice']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim()).toBe(`Error from server (Forbidden): users "alice" is forbidden: User "${robot}" cannot impersonate resource "users" in API group "" at the cluster scope`);
  });
});
