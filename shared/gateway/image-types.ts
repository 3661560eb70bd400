/** The image types providers that take bytes accept (Bedrock: png, jpeg, gif, webp), by their media type. */
const DECLARED: Record<string, string> = {
  'image/png': 'image/png',
  'image/jpeg': 'image/jpeg',
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/gif': 'image/gif',
  'image/webp': 'image/webp',
};

/** Types that say nothing about the bytes: object stores often serve images as these. */
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/**
 * The media type of fetched image bytes. A declared image type decides; a generic or missing one is read from the
 * bytes' signature (PNG, JPEG, GIF, WebP). Anything else — another image type, HTML, JSON — is undefined.
 */
export function imageMediaType(contentType: string | undefined, bytes: Uint8Array): string | undefined {
  const declared = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (DECLARED[declared]) return DECLARED[declared];
  if (!GENERIC.has(declared)) return undefined;
  return sniff(bytes);
}

function sniff(bytes: Uint8Array): string | undefined {
  const starts = (...signature: number[]) => signature.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}
