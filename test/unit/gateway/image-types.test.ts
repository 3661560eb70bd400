import { describe, expect, it } from 'vitest';
import { imageMediaType } from '../../../shared/gateway/image-types.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
const GIF = Uint8Array.from(Buffer.from('GIF89a....'));
const WEBP = Uint8Array.from(Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1'));
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xdb]);

describe('the media type of fetched image bytes', () => {
  it('takes a declared image type, parameters and case aside', () => {
    expect(imageMediaType('image/PNG; charset=binary', new Uint8Array())).toBe('image/png');
    expect(imageMediaType('image/jpg', new Uint8Array())).toBe('image/jpeg');
    expect(imageMediaType('image/webp', new Uint8Array())).toBe('image/webp');
  });

  it('reads the signature when the type is generic or missing', () => {
    expect(imageMediaType('application/octet-stream', PNG)).toBe('image/png');
    expect(imageMediaType(undefined, GIF)).toBe('image/gif');
    expect(imageMediaType('binary/octet-stream', WEBP)).toBe('image/webp');
    expect(imageMediaType('', JPEG)).toBe('image/jpeg');
    expect(imageMediaType('application/octet-stream', Uint8Array.from([1, 2, 3]))).toBeUndefined();
  });

  it('refuses other declared types, even when the bytes look like an image', () => {
    expect(imageMediaType('image/tiff', PNG)).toBeUndefined();
    expect(imageMediaType('text/html', PNG)).toBeUndefined();
    expect(imageMediaType('image/svg+xml', new Uint8Array())).toBeUndefined();
  });
});
