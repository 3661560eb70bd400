import * as z from 'zod';

/**
 * `allowed_custom_hosts` of a stored resource (virtual key, integration, saved config, deployment): exact origins
 * (`https://proxy.example.com`, `http://10.0.0.5:8080`), no path, query or credentials; stored as `URL.origin`.
 */
export const allowedCustomHostsSchema = z
  .array(
    z
      .string()
      .max(2048)
      .refine((value) => isBareOrigin(value), 'must be an origin such as https://proxy.example.com (http or https, no path, query or credentials)')
      .transform((value) => new URL(value).origin),
  )
  .max(20)
  .meta({
    description:
      'Origins (scheme://host[:port]) besides the stored custom_host that a request may send this resource’s stored credential to with x-gw-custom-host or an inline config’s custom_host. Empty or absent: none (docs/security.md).',
  });

function isBareOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && url.pathname === '/' && !url.search && !url.hash;
  } catch {
    return false;
  }
}
