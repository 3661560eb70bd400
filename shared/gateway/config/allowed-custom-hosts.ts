import * as z from 'zod';

/**
 * `allowed_custom_hosts` of a stored resource (virtual key, integration, saved config, deployment): base URLs
 * (`https://proxy.example.com`, `https://llm.example.com/tenant-a/v1`, `http://10.0.0.5:8080`), no query, fragment
 * or credentials; stored as origin + path without a trailing `/`. A request's custom host matches an entry when it
 * is that base URL or lies below it (stored-credential-host.ts), so an entry with a path binds the credential to
 * that path, as a stored custom_host does.
 */
export const allowedCustomHostsSchema = z
  .array(
    z
      .string()
      .max(2048)
      .refine((value) => isBaseUrl(value), 'must be a base URL such as https://proxy.example.com or https://llm.example.com/tenant-a (http or https, no query, fragment or credentials)')
      .transform((value) => {
        const url = new URL(value);
        return url.origin + url.pathname.replace(/\/+$/, '');
      }),
  )
  .max(20)
  .meta({
    description:
      'Base URLs (scheme://host[:port][/path]) besides the stored custom_host that a request may send this resource’s stored credential to with x-gw-custom-host or an inline config’s custom_host: the URL itself or a path below it. Empty or absent: none (docs/security.md).',
  });

function isBaseUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash && !/%(?:2f|5c)/i.test(url.pathname);
  } catch {
    return false;
  }
}
