import { badRequest } from '../../http/errors.js';

// An Azure resource name: letters, digits and hyphens (as the virtual-key schema stores it). It becomes part of a
// hostname, so nothing else passes: no dot can move the call to another domain.
const RESOURCE_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/;

/**
 * `https://{resource}.openai.azure.com`: an Azure OpenAI resource's own host. Each customer's resource has its own,
 * so the resource name chooses where a credential goes (the gateway checks a stored credential against it:
 * shared/gateway/stored-credential-host.ts). Its own module so the gateway can use it without loading the adapter.
 */
export function azureResourceHost(resourceName: string): string {
  if (!RESOURCE_NAME.test(resourceName)) {
    throw badRequest('invalid_azure_resource', 'x-gw-azure-resource-name must be an Azure resource name (letters, digits and hyphens, at most 63)', 'x-gw-azure-resource-name');
  }
  return `https://${resourceName}.openai.azure.com`;
}
