import { KubeConfig } from '@kubernetes/client-node';
import { describeError, OlmError } from '@olm/core';
import { RuntimeErrorCodes } from './errors.js';

export function loadKubeConfig(kubeconfig: string | KubeConfig, context?: string): KubeConfig {
  let config: KubeConfig;
  if (typeof kubeconfig === 'string') {
    config = new KubeConfig();
    try {
      config.loadFromString(kubeconfig);
    } catch (error) {
      throw new OlmError(RuntimeErrorCodes.invalidKubeconfig, `the kubeconfig could not be parsed: ${describeError(error)}`, {
        cause: error,
      });
    }
  } else {
    config = kubeconfig;
  }
  if (context) config.setCurrentContext(context);
  return config;
}
