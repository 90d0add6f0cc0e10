import { describe, expect, it } from 'vitest';
import { plugins } from '../src/plugins.js';
import { runCliCaptured } from './run-cli.js';

describe('olm CLI', () => {
  it('prints help with every command and exits 0', async () => {
    const run = await runCliCaptured(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: olm');
    expect(run.stdout).toMatch(/^\s+version\b/m);
    expect(run.stdout).toMatch(/^\s+up\b/m);
  });

  it('prints the version and the booted plugin list as JSON', async () => {
    const run = await runCliCaptured(['version', '-o', 'json']);
    expect(run.code).toBe(0);
    const info = JSON.parse(run.stdout) as { version: string; plugins: Array<{ id: string }> };
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.plugins.map((plugin) => plugin.id)).toEqual(plugins.map((plugin) => plugin.id));
  });

  it('prints the version as yaml, and refuses an -o outside json and yaml', async () => {
    const run = await runCliCaptured(['version', '-o', 'yaml']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^version: \d+\.\d+\.\d+\nnode: /);
    for (const command of ['version', 'crds', 'status', 'install']) {
      const bad = await runCliCaptured([command, ...(command === 'install' ? ['x'] : []), '-o', 'text']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("option '-o, --output <format>' argument 'text' is invalid. Allowed choices are json, yaml.");
    }
  });

  it('lists the cluster commands, each with --kubeconfig, --context and -n', async () => {
    for (const command of ['install', 'status', 'upgrade', 'approve', 'uninstall', 'run', 'packageserver']) {
      const run = await runCliCaptured([command, '--help']);
      expect(run.code).toBe(0);
      for (const flag of ['--kubeconfig <file>', '--context <name>', '-n, --namespace <namespace>']) expect({ command, help: run.stdout }).toEqual({ command, help: expect.stringContaining(flag) });
    }
  });

  it('exits 2 on an unknown command or option, with a hint on stderr', async () => {
    for (const args of [['no-such-command'], ['version', '--no-such-flag']]) {
      const run = await runCliCaptured(args);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/unknown (command|option)/);
      expect(run.stdout).toBe('');
    }
  });
});
