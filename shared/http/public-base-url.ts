import { settings } from '../settings.js';

// The local server's own address, once it listens: a fact of the process, the same for every request.
let listeningBaseUrl: string | undefined;

/** The local edge tells where it listens (infra/local/server.ts), the fallback when GW_PUBLIC_BASE_URL is unset. */
export function setListeningBaseUrl(url: string): void {
  listeningBaseUrl = url.replace(/\/+$/, '');
}

/**
 * The base URL of the links gw hands out (an export's local download_url): GW_PUBLIC_BASE_URL, else the address the
 * local server listens on. Never the request's `Host` or `X-Forwarded-Proto`/`-Host`: those are whatever the caller
 * sent, and a link built from them (`javascript:alert(1)//://evil.example/…`) sends its reader, and the key it
 * fetches with, wherever the caller chose. Behind a proxy, set GW_PUBLIC_BASE_URL to the proxy's address.
 */
export function publicBaseUrl(): string {
  const configured = settings().GW_PUBLIC_BASE_URL;
  return (configured ? configured.replace(/\/+$/, '') : undefined) ?? listeningBaseUrl ?? 'http://127.0.0.1:8787';
}
