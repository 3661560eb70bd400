import { GatewayError } from '../../http/errors.js';
import { configErrorFromZod } from '../../gateway/config/errors.js';
import { configSchema } from '../../gateway/config/schema.js';
import { assertPrintableConfigCredentials } from '../../gateway/config/credential-fields.js';
import { buildRouteTree } from '../../gateway/config/target-tree.js';
import { ConfigRepository } from '../../store/config-repository.js';
import type { DeploymentConfig } from '../../store/deployment-repository.js';
import { configCredentialFields, refuseGatewayKeyCredentials } from '../gateway-key-credential.js';

/** A deployment body's config → what is stored; inline configs pass the gateway's own checks, saved ones must exist. */
export async function checkedDeploymentConfig(raw: Record<string, unknown>, configWorkspaceId: string, configs = new ConfigRepository()): Promise<DeploymentConfig> {
  if (isSavedReference(raw)) {
    const { id, version } = raw;
    const found = version === undefined ? await configs.get(configWorkspaceId, id) : await configs.getVersion(configWorkspaceId, id, version);
    if (!found) {
      const what = version === undefined ? `saved config '${id}'` : `version ${version} of saved config '${id}'`;
      throw new GatewayError(400, 'invalid_config_reference', `config.id: there is no ${what} in workspace ${configWorkspaceId}`, { param: 'config.id' });
    }
    return version === undefined ? { kind: 'saved', id } : { kind: 'saved', id, version };
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) throw configErrorFromZod(parsed.error, raw);
  // The semantic checks the gateway runs on x-gw-config (strategies, target names, custom hosts).
  buildRouteTree(parsed.data, { azure: {}, vertex: {}, aws: {}, overrideParams: {} });
  // As a saved config's: a credential no header can carry is a 400 here, not a 502 on every call through the deployment.
  assertPrintableConfigCredentials(parsed.data);
  await refuseGatewayKeyCredentials(configCredentialFields(parsed.data));
  return { kind: 'inline', inline: raw };
}

function isSavedReference(raw: Record<string, unknown>): raw is { id: string; version?: number } {
  return typeof raw.id === 'string' && Object.keys(raw).every((key) => key === 'id' || key === 'version');
}

const SECRET_FIELD = /(api_key|secret|token|password|credential|service_account)/i;

/** An inline config as a response may show it: every secret-looking field masked, at any depth. */
export function maskedConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskedConfig);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, SECRET_FIELD.test(key) && item !== null && typeof item !== 'object' ? '********' : maskedConfig(item)]));
}
