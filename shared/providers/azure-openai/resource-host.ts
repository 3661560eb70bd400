/**
 * `https://{resource}.openai.azure.com`: an Azure OpenAI resource's own host. Each customer's resource has its own,
 * so the resource name chooses where a credential goes (the gateway checks a stored credential against it:
 * shared/gateway/stored-credential-host.ts). Its own module so the gateway can use it without loading the adapter.
 */
export function azureResourceHost(resourceName: string): string {
  return `https://${encodeURIComponent(resourceName)}.openai.azure.com`;
}
